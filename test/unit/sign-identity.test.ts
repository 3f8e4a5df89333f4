import { readFileSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { createLocalIdentityStore } from "#adapters/local-identity-store.ts";
import { createS3IdentityStore } from "#adapters/s3-identity-store.ts";
import { generateIdentity, identityToPem, parsePemIdentity } from "#domain/signing/signing-identity.ts";
import { testPki } from "#test/helpers/pki/test-pki.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

describe("local identity store", () => {
  it("generates an RSA-3072 'Signet Local Signing' identity once, then keeps it", async () => {
    const dir = join(scratchDir("identity"), "identity");
    const first = await createLocalIdentityStore({ dir, p12Password: "" }).load();
    expect(first.certificate.subject).toBe("CN=Signet Local Signing");
    expect(first.signer.publicKey.asymmetricKeyDetails?.modulusLength).toBe(3072);
    expect(statSync(join(dir, "identity.pem")).mode & 0o777).toBe(0o600);
    const again = await createLocalIdentityStore({ dir, p12Password: "" }).load();
    expect(again.certificate.fingerprint256).toBe(first.certificate.fingerprint256);
  }, 30_000);

  it("agrees on one identity when two stores start at once", async () => {
    const dir = join(scratchDir("identity"), "identity");
    const [a, b] = await Promise.all([createLocalIdentityStore({ dir, p12Password: "" }).load(), createLocalIdentityStore({ dir, p12Password: "" }).load()]);
    const onDisk = parsePemIdentity(readFileSync(join(dir, "identity.pem"), "utf8"));
    expect([a.certificate.fingerprint256, b.certificate.fingerprint256]).toContain(onDisk.certificate.fingerprint256);
    const third = await createLocalIdentityStore({ dir, p12Password: "" }).load();
    expect(third.certificate.fingerprint256).toBe(onDisk.certificate.fingerprint256);
  }, 30_000);

  it("prefers an operator's P12 (made by openssl) over identity.pem", async () => {
    const dir = scratchDir("identity-p12");
    writeFileSync(join(dir, "identity.p12"), testPki().p12("operator"));
    writeFileSync(join(dir, "identity.pem"), identityToPem(await generateIdentity({ keyType: "EC" })));
    const identity = await createLocalIdentityStore({ dir, p12Password: "s3cret" }).load();
    expect(identity.keyType).toBe("EC");
    expect(identity.certificate.subject).toContain("CN=Operator Signing");
  });

  it("reads a PEM bundle with its chain, and never quotes key material in errors", async () => {
    const root = await generateIdentity({ keyType: "EC", commonName: "Operator Root", isCa: true });
    const leaf = await generateIdentity({ keyType: "EC", commonName: "Operator Leaf", issuer: root });
    const dir = scratchDir("identity-pem");
    writeFileSync(join(dir, "identity.pem"), identityToPem(leaf));
    const loaded = await createLocalIdentityStore({ dir, p12Password: "" }).load();
    expect(loaded.chain.map((certificate) => certificate.subject)).toEqual(["CN=Operator Root"]);

    const keyOnly = leaf.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const broken = scratchDir("identity-broken");
    writeFileSync(join(broken, "identity.pem"), keyOnly);
    const failure = await createLocalIdentityStore({ dir: broken, p12Password: "" })
      .load()
      .catch((error: Error) => error);
    expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(String((failure as Error).message)).not.toContain(keyOnly.split("\n")[1]!);
    expect((failure as Error).message).toMatch(/no certificate in the bundle matches the private key/);
  });
});

describe("identity store errors", () => {
  it("keep the server's file path out of the caller's message and in the logged cause", async () => {
    const dir = scratchDir("identity-leak");
    writeFileSync(join(dir, "identity.pem"), "not a pem bundle at all");
    const failure = (await createLocalIdentityStore({ dir, p12Password: "" })
      .load()
      .catch((error: unknown) => error)) as Error;
    expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(failure.message).toMatch(/^The service's signing identity cannot be used: /);
    expect(failure.message).not.toContain(dir);
    expect(failure.message).not.toContain("identity.pem");
    expect(String((failure.cause as Error).message)).toContain(join(dir, "identity.pem"));
    expect((failure.cause as Error).cause).toBeInstanceOf(Error);
  });

  it("pass a bucket outage on unchanged instead of calling the identity unreadable", async () => {
    // A real HTTP endpoint: identity.p12 does not exist (404 NoSuchKey), then the connection drops on identity.pem.
    const server = http.createServer((req, res) => {
      if (req.url?.includes("identity.p12")) {
        res.writeHead(404, { "content-type": "application/xml" }).end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>missing</Message></Error>');
      } else req.socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const client = new S3Client({
        region: "us-east-1",
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        forcePathStyle: true,
        maxAttempts: 1,
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
      });
      const failure = (await createS3IdentityStore({ bucket: "identity-bucket", p12Password: "", client })
        .load()
        .catch((error: unknown) => error)) as Error & { code: string };
      expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "The signing identity bucket cannot be read; retry later." });
      expect(failure.cause).toBeDefined();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("random DER integers (certificate serials, TSA nonces)", () => {
  it("are positive and minimal even when the random bytes start with zeros", async () => {
    const { randomPositiveInteger } = await import("#domain/pki/der.ts");
    for (const first of [0x00, 0x01, 0x7f, 0x80, 0xff]) {
      const value = randomPositiveInteger(Buffer.from([first, 0x00, 0x12]));
      expect(value[0]! & 0x80).toBe(0);
      expect(value[0]).not.toBe(0);
      expect(value.subarray(1)).toEqual(Buffer.from([0x00, 0x12]));
    }
  });
});

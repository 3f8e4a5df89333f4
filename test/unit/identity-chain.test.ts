import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Client } from "@aws-sdk/client-s3";
import { SSMClient } from "@aws-sdk/client-ssm";
import { createS3CertificateStore, createS3IdentityStore, identityKeys } from "#adapters/s3-identity-store.ts";
import { readSecureParameter } from "#adapters/ssm-secure-parameter.ts";
import { certificateChainPem, parseCertificateChain } from "#domain/signing/identity-store.ts";
import { describeKey, generateIdentity, identityToPem } from "#domain/signing/signing-identity.ts";
import { startFixtureServer, type FixtureServer } from "#test/helpers/http-fixture-server.ts";

// Sign publishes the certificate chain; verify and verify-key read only that.
// A path-style S3 stand-in on loopback: GET / PUT (with If-None-Match: *) of whole objects, 404
// NoSuchKey for missing ones. It records which keys each client asked for.
const objects = new Map<string, Buffer>();
const requests: string[] = [];
let server: FixtureServer;

function serve(req: IncomingMessage, res: ServerResponse): void {
  const key = decodeURIComponent(new URL(req.url!, "http://x").pathname.replace(/^\/[^/]+\//, ""));
  requests.push(`${req.method} ${key}`);
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    if (req.method === "GET") {
      const body = objects.get(key);
      if (!body) {
        res.writeHead(404, { "content-type": "application/xml" }).end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>missing</Message></Error>');
      } else res.writeHead(200, { "content-length": body.length }).end(body);
    } else if (req.method === "PUT") {
      if (req.headers["if-none-match"] === "*" && objects.has(key)) {
        res
          .writeHead(412, { "content-type": "application/xml" })
          .end('<?xml version="1.0"?><Error><Code>PreconditionFailed</Code><Message>exists</Message></Error>');
        return;
      }
      objects.set(key, Buffer.concat(chunks));
      res.writeHead(200, { etag: '"x"' }).end();
    } else res.writeHead(405).end();
  });
}

const client = () =>
  new S3Client({
    region: "us-east-1",
    endpoint: server.url(""),
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });

beforeAll(async () => {
  server = await startFixtureServer(serve);
});
afterAll(() => server.close());

describe("published certificate chain", () => {
  it("is absent before the first signature: the certificate store answers undefined, and asks again next time", async () => {
    objects.clear();
    const store = createS3CertificateStore({ bucket: "b", client: client() });
    expect(await store.load()).toBeUndefined();
    expect(await store.load()).toBeUndefined();
    expect(requests.filter((r) => r === `GET ${identityKeys.chain}`).length).toBeGreaterThanOrEqual(2);
  });

  it("is written by the signing store, holds no key, and is all the certificate store reads", async () => {
    objects.clear();
    const signing = await createS3IdentityStore({ bucket: "b", p12Password: "", client: client() }).load();
    const published = objects.get(identityKeys.chain)!.toString("utf8");
    expect(published).toBe(certificateChainPem(signing));
    expect(published).not.toContain("PRIVATE KEY");
    requests.length = 0;
    const known = await createS3CertificateStore({ bucket: "b", client: client() }).load();
    expect(known!.certificate.fingerprint256).toBe(signing.certificate.fingerprint256);
    expect(describeKey(known!)).toBe(describeKey(signing));
    expect(known).not.toHaveProperty("privateKey");
    expect(requests).toEqual([`GET ${identityKeys.chain}`]);
  }, 30_000);

  it("is rewritten when an operator replaced the identity", async () => {
    objects.clear();
    const old = await generateIdentity({ keyType: "EC" });
    objects.set(identityKeys.chain, Buffer.from(certificateChainPem(old)));
    const replacement = await generateIdentity({ keyType: "EC", commonName: "Operator" });
    objects.set(identityKeys.pem, Buffer.from(identityToPem(replacement)));
    await createS3IdentityStore({ bucket: "b", p12Password: "", client: client() }).load();
    expect(parseCertificateChain(objects.get(identityKeys.chain)!.toString("utf8")).certificate.subject).toBe("CN=Operator");
  });

  it("asks for the P12 password only once, when it is a lookup", async () => {
    objects.clear();
    const replacement = await generateIdentity({ keyType: "EC" });
    objects.set(identityKeys.pem, Buffer.from(identityToPem(replacement)));
    let asked = 0;
    const p12Password = async () => {
      asked++;
      return "";
    };
    const store = createS3IdentityStore({ bucket: "b", p12Password, client: client() });
    await store.load();
    await store.load();
    expect(asked).toBe(1);
  });
});

describe("the P12 password from SSM Parameter Store", () => {
  it("reads the SecureString decrypted, and turns a failure into SERVICE_UNAVAILABLE without the value", async () => {
    const seen: Array<{ target: string | undefined; body: { Name: string; WithDecryption: boolean } }> = [];
    const ssm = await startFixtureServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { Name: string; WithDecryption: boolean };
        seen.push({ target: req.headers["x-amz-target"] as string | undefined, body });
        if (body.Name === "/signet/p12") {
          res
            .writeHead(200, { "content-type": "application/x-amz-json-1.1" })
            .end(JSON.stringify({ Parameter: { Name: body.Name, Type: "SecureString", Value: "s3cret-pw" } }));
        } else {
          res.writeHead(400, { "content-type": "application/x-amz-json-1.1" }).end(JSON.stringify({ __type: "ParameterNotFound", message: "not found" }));
        }
      });
    });
    try {
      const client = new SSMClient({
        region: "us-east-1",
        endpoint: ssm.url(""),
        maxAttempts: 1,
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
      });
      expect(await readSecureParameter("/signet/p12", client)).toBe("s3cret-pw");
      expect(seen[0]).toEqual({ target: "AmazonSSM.GetParameter", body: { Name: "/signet/p12", WithDecryption: true } });
      const failure = (await readSecureParameter("/signet/missing", client).catch((error: unknown) => error)) as Error & { code: string };
      expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "The signing identity's password cannot be read; retry later." });
      expect(String((failure.cause as Error).message)).toContain("/signet/missing");
    } finally {
      await ssm.close();
    }
  });
});

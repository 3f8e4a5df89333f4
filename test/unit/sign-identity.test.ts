import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLocalIdentityStore } from "#adapters/local-identity-store.ts";
import { generateIdentity, identityToPem, parsePemIdentity } from "#domain/signing-identity.ts";
import { openssl, scratchDir } from "#test/helpers/sign-tools.ts";

describe("local identity store", () => {
  it("generates an RSA-3072 'Signet Local Signing' identity once, then keeps it", async () => {
    const dir = join(scratchDir("identity"), "identity");
    const first = await createLocalIdentityStore({ dir, p12Password: "" }).load();
    expect(first.certificate.subject).toBe("CN=Signet Local Signing");
    expect(first.privateKey.asymmetricKeyDetails?.modulusLength).toBe(3072);
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
    openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2", "-subj", "/CN=Operator Signing/O=Example");
    openssl(dir, "pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-out", "identity.p12", "-passout", "pass:s3cret");
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
    const failure = await createLocalIdentityStore({ dir: broken, p12Password: "" }).load().catch((error: Error) => error);
    expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(String((failure as Error).message)).not.toContain(keyOnly.split("\n")[1]!);
    expect((failure as Error).message).toMatch(/no certificate in the bundle matches the private key/);
  });
});

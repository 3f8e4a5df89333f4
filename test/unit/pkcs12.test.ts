// PKCS#12 files as openssl writes them, read with pkijs (functions/domain/pki/pkcs12.ts):
// the modern default, the legacy SHA-1 3DES and RC2 ciphers (Windows, OpenSSL 1.x), and the refusals.
import { describe, expect, it } from "vitest";
import { Pkcs12Error, readPkcs12 } from "#domain/pki/pkcs12.ts";
import { parseP12Identity } from "#domain/signing/signing-identity.ts";
import { testPki } from "#test/helpers/pki/test-pki.ts";

// The files are the shared test PKI's (test/helpers/pki/testing-pki.ts): "p12-leaf" with its
// root "p12-root" in every algorithm, "p12-ec" with an empty password and with "right".
const p12 = (name: string) => testPki().p12(name);

describe("readPkcs12", () => {
  it.each([
    ["OpenSSL 3's default (PBES2, AES-256, PBKDF2)", "p12-openssl-default"],
    ["the legacy SHA-1 3DES ciphers (Windows' TripleDES export)", "p12-sha1-3des"],
    ["unencrypted certificates", "p12-no-certificate-encryption"],
    ["OpenSSL 1.x's legacy default (RC2-40 certificates, 3DES key)", "p12-legacy-rc2-40"],
    ["RC2-128 certificates", "p12-legacy-rc2-128"],
  ])("reads an RSA key with its chain from %s", async (_name, file) => {
    const bytes = p12(file);
    const { privateKey, certificates } = await readPkcs12(bytes, "s3cret ü");
    expect(privateKey.asymmetricKeyType).toBe("rsa");
    expect(certificates.map((c) => c.subject).sort()).toEqual(["CN=P12 Leaf", "CN=P12 Root"]);
    const identity = await parseP12Identity(bytes, "s3cret ü");
    expect(identity.certificate.subject).toBe("CN=P12 Leaf");
    expect(identity.chain.map((c) => c.subject)).toEqual(["CN=P12 Root"]);
  });

  it("reads an EC P-256 key with an empty password", async () => {
    const identity = await parseP12Identity(p12("p12-ec"), "");
    expect(identity.keyType).toBe("EC");
  });

  it.each([
    ["a wrong password", () => p12("p12-ec-password-right"), /MAC does not match/],
    ["bytes that are not PKCS#12", () => Buffer.from("not a p12 file"), /not a PKCS#12 file/],
  ])("refuses %s with a Pkcs12Error that says why", async (_name, make, reason) => {
    const error = await readPkcs12(make(), "pw").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Pkcs12Error);
    expect((error as Error).message).toMatch(reason);
    // The identity error names the cause and quotes no key material.
    await expect(parseP12Identity(make(), "pw")).rejects.toThrow(/could not be opened/);
  });
});

// PKCS#12 files as openssl writes them, read with pkijs (functions/domain/signing/pkcs12.ts):
// the modern default, the legacy SHA-1 3DES and RC2 ciphers (Windows, OpenSSL 1.x), and the refusals.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Pkcs12Error, readPkcs12 } from "#domain/signing/pkcs12.ts";
import { parseP12Identity } from "#domain/signing/signing-identity.ts";
import { openssl, scratchDir } from "#test/helpers/sign-tools.ts";

let dir: string;

beforeAll(() => {
  dir = scratchDir("pkcs12");
  // A root CA and an RSA leaf it issued, so the file carries a chain.
  openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "root.key",
    "-out",
    "root.pem",
    "-days",
    "2",
    "-subj",
    "/CN=P12 Root",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign",
  );
  openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=P12 Leaf");
  openssl(dir, "x509", "-req", "-in", "leaf.csr", "-CA", "root.pem", "-CAkey", "root.key", "-CAcreateserial", "-out", "leaf.pem", "-days", "2");
  openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    "ec.key",
    "-out",
    "ec.pem",
    "-days",
    "2",
    "-subj",
    "/CN=P12 EC",
  );
}, 60_000);

function export12(name: string, inputs: { key: string; cert: string; chain?: string }, password: string, extra: string[] = []): Buffer {
  openssl(
    dir,
    "pkcs12",
    "-export",
    "-inkey",
    inputs.key,
    "-in",
    inputs.cert,
    ...(inputs.chain ? ["-certfile", inputs.chain] : []),
    "-out",
    name,
    "-passout",
    `pass:${password}`,
    ...extra,
  );
  return readFileSync(join(dir, name));
}

describe("readPkcs12", () => {
  it.each([
    ["OpenSSL 3's default (PBES2, AES-256, PBKDF2)", []],
    ["the legacy SHA-1 3DES ciphers (Windows' TripleDES export)", ["-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1"]],
    ["unencrypted certificates", ["-certpbe", "NONE"]],
    ["OpenSSL 1.x's legacy default (RC2-40 certificates, 3DES key)", ["-legacy"]],
    ["RC2-128 certificates", ["-legacy", "-certpbe", "PBE-SHA1-RC2-128"]],
  ])("reads an RSA key with its chain from %s", async (_name, extra) => {
    const bytes = export12(`rsa-${extra.join("")}.p12`, { key: "leaf.key", cert: "leaf.pem", chain: "root.pem" }, "s3cret ü", extra);
    const { privateKey, certificates } = await readPkcs12(bytes, "s3cret ü");
    expect(privateKey.asymmetricKeyType).toBe("rsa");
    expect(certificates.map((c) => c.subject).sort()).toEqual(["CN=P12 Leaf", "CN=P12 Root"]);
    const identity = await parseP12Identity(bytes, "s3cret ü");
    expect(identity.certificate.subject).toBe("CN=P12 Leaf");
    expect(identity.chain.map((c) => c.subject)).toEqual(["CN=P12 Root"]);
  });

  it("reads an EC P-256 key with an empty password", async () => {
    const identity = await parseP12Identity(export12("ec.p12", { key: "ec.key", cert: "ec.pem" }, ""), "");
    expect(identity.keyType).toBe("EC");
  });

  it.each([
    ["a wrong password", () => export12("wrong.p12", { key: "ec.key", cert: "ec.pem" }, "right"), /MAC does not match/],
    ["bytes that are not PKCS#12", () => Buffer.from("not a p12 file"), /not a PKCS#12 file/],
  ])("refuses %s with a Pkcs12Error that says why", async (_name, make, reason) => {
    const error = await readPkcs12(make(), "pw").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Pkcs12Error);
    expect((error as Error).message).toMatch(reason);
    // The identity error names the cause and quotes no key material.
    await expect(parseP12Identity(make(), "pw")).rejects.toThrow(/could not be opened/);
  });
});

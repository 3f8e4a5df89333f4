import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createLocalIdentityStore } from "#adapters/local-identity-store.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { generateIdentity, rootCertificate, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { certificateText, verifyCertificate } from "#test/helpers/pki/openssl.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { pyhankoValidate } from "#test/helpers/signature-checks.ts";

// The local identity is a root CA and a signing certificate it issues, so pdfsig (NSS)
// and pyHanko can be told to trust it; an operator's own certificate keeps working.

let dir: string;
let identity: SigningIdentity;

beforeAll(async () => {
  dir = scratchDir("local-root");
  identity = await createLocalIdentityStore({ dir: join(dir, "identity"), p12Password: "" }).load();
  writeFileSync(join(dir, "leaf.pem"), identity.certificate.toString());
  writeFileSync(join(dir, "root.pem"), rootCertificate(identity).toString());
}, 60_000);

/** nssTrusting makes an NSS database (certutil) trusting one root for signing, as the README shows. */
function nssTrusting(root: string): string {
  const db = join(scratchDir("nss"), "db");
  execFileSync("mkdir", ["-p", db]);
  execFileSync("certutil", ["-N", "-d", `sql:${db}`, "--empty-password"]);
  execFileSync("certutil", ["-A", "-d", `sql:${db}`, "-n", "signet-local-root", "-t", "C,C,C", "-i", root]);
  return db;
}

function pdfsigWith(db: string, pdf: Buffer): string {
  const file = join(dir, `signed-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  try {
    return execFileSync("pdfsig", ["-nssdir", `sql:${db}`, file], { encoding: "utf8" });
  } catch (error) {
    return String((error as { stdout?: string }).stdout);
  }
}

describe("the local signing identity", () => {
  it("is a signing certificate issued by a local root CA, with key identifiers, key usage and NULL parameters", () => {
    const root = rootCertificate(identity);
    expect(identity.chain).toHaveLength(1);
    expect(root.subject).toBe("CN=Signet Local Root CA");
    expect(root.ca).toBe(true);
    expect(identity.certificate.ca).toBe(false);
    expect(identity.certificate.checkIssued(root)).toBe(true);
    expect(verifyCertificate(join(dir, "root.pem"), join(dir, "leaf.pem")).stdout).toMatch(/leaf.pem: OK/);
    const leaf = certificateText(join(dir, "leaf.pem"));
    expect(leaf).toMatch(/X509v3 Subject Key Identifier/);
    expect(leaf).toMatch(/X509v3 Authority Key Identifier/);
    expect(leaf).toMatch(/Digital Signature, Non Repudiation/);
    const rootText = certificateText(join(dir, "root.pem"));
    expect(rootText).toMatch(/Certificate Sign, CRL Sign/);
    // sha256WithRSAEncryption followed by its NULL parameter (05 00), in both places it appears.
    const der = identity.certificate.raw;
    const withNull = Buffer.from("06092a864886f70d01010b0500", "hex");
    expect(der.indexOf(withNull)).toBeGreaterThan(0);
    expect(der.lastIndexOf(withNull)).toBeGreaterThan(der.indexOf(withNull));
  });

  it("is trusted by pdfsig through an NSS database holding the root, and by pyHanko given the root", async () => {
    const signed = await signPdf(await makePdf(1), { identity, signingTime: new Date(), signerName: "Ada Lovelace", reason: "test" });
    const db = nssTrusting(join(dir, "root.pem"));
    const report = pdfsigWith(db, signed);
    expect(report, report).toMatch(/Signature is Valid/);
    expect(report, report).toMatch(/Certificate is Trusted/);
    const theirs = pyhankoValidate(signed, [join(dir, "root.pem")]);
    expect(theirs.signatures[0]!.trusted, theirs.output).toBe(true);
  }, 30_000);

  it("keeps an operator's self-signed certificate working (its root is itself)", async () => {
    const own = await generateIdentity({ keyType: "EC", commonName: "Operator Signing" });
    expect(rootCertificate(own).fingerprint256).toBe(own.certificate.fingerprint256);
    const signed = await signPdf(await makePdf(1), { identity: own, signingTime: new Date(), signerName: "Op", reason: "test" });
    expect(pyhankoValidate(signed).signatures[0]).toMatchObject({ intact: true, valid: true });
  });
});

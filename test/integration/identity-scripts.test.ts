// `npm run identity:csr` makes a CSR signed in KMS (here the stand-in), a CA
// certifies it, npm run identity:install-cert installs the chain after checking it against the
// KMS key, and Signet signs with it: pyHanko trusts the signature under the CA's root.
import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKmsSigner, kmsClientFor, kmsSignerDefaults } from "#adapters/kms-signer.ts";
import { localIdentityFiles } from "#adapters/local-identity-store.ts";
import { createKmsIdentityStore } from "#domain/signing/kms-identity-store.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { startKmsStandIn, type KmsStandIn } from "#local/kms-stand-in.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { certifyCsr } from "#test/helpers/pki/build.ts";
import { checkCsr } from "#test/helpers/pki/openssl.ts";
import { testPki } from "#test/helpers/pki/test-pki.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { pyhankoValidate } from "#test/helpers/signature-checks.ts";

const dataDir = scratchDir("identity-scripts");
const run = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", "scripts/identity.ts", ...args], {
    encoding: "utf8",
    env: { ...process.env, SIGNET_DATA_DIR: dataDir, SIGNET_KMS_KEY_ID: "local", SIGNET_IDENTITY_BUCKET: "" },
  });
let kms: KmsStandIn | undefined;

// The CA is the test PKI's "acme-ca" (EC P-256, keyCertSign and cRLSign).
const ca = () => testPki().certificatePath("acme-ca");
afterAll(() => kms?.close());

describe("identity:csr and identity:install-cert with the KMS stand-in", () => {
  it("makes a CSR signed by the KMS key, which openssl verifies, with the given subject", () => {
    const made = run("csr", "ACME Document Signing");
    expect(made.status, made.stderr).toBe(0);
    writeFileSync(join(dataDir, "req.csr"), made.stdout);
    const checked = checkCsr(join(dataDir, "req.csr"));
    expect(`${checked.stdout}${checked.stderr}`).toMatch(/verify OK/);
    expect(checked.stdout).toMatch(/CN ?= ?ACME Document Signing/);
  }, 60_000);

  it("refuses a certificate for another key, naming both fingerprints, and installs the CA's chain for the KMS key (0600)", async () => {
    const refused = run("install-cert", ca());
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /does not match the signing key: the certificate's public key has the SHA-256 fingerprint ([0-9A-F]{2}:){31}[0-9A-F]{2}, the key's ([0-9A-F]{2}:){31}[0-9A-F]{2}/,
    );

    certifyCsr(testPki(), "acme-ca", join(dataDir, "req.csr"), join(dataDir, "leaf.pem"));
    // Root first: the installer orders the chain from the key's certificate up.
    writeFileSync(join(dataDir, "chain.pem"), readFileSync(ca(), "utf8") + readFileSync(join(dataDir, "leaf.pem"), "utf8"));
    const installed = run("install-cert", join(dataDir, "chain.pem"));
    expect(installed.status, installed.stderr).toBe(0);

    // Signet then signs with the KMS key under the CA's certificate: pyHanko trusts it under the CA.
    kms = await startKmsStandIn({ dataDir: join(dataDir, "kms") });
    const { signing } = JSON.parse(readFileSync(join(dataDir, "kms", "signet-keys.json"), "utf8")) as { signing: string };
    const client = kmsClientFor({ region: "us-east-1", endpoint: kms.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    const identity = await createKmsIdentityStore(localIdentityFiles(join(dataDir, "identity")), {
      signer: () => createKmsSigner({ keyId: signing, client, ...kmsSignerDefaults }),
      crlUrl: () => undefined,
      noRevocationHint: "none",
    }).load();
    expect(identity.certificate.subject).toBe("CN=ACME Document Signing");
    expect(identity.chain.map((certificate) => certificate.fingerprint256)).toEqual([new X509Certificate(readFileSync(ca())).fingerprint256]);
    const signed = await signPdf(await makePdf(1), { identity, signingTime: new Date(), signerName: "Ada Lovelace", reason: "test" });
    const report = pyhankoValidate(signed, [ca()]);
    expect(report.allHold, report.output).toBe(true);
    expect(report.signatures).toMatchObject([{ valid: true, trusted: true }]);
  }, 60_000);
});

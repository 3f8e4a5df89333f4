// The KMS signer against the KMS stand-in, through the real AWS SDK client: RSA and
// ECDSA signatures that node's own verify accepts, a certificate that does not certify the key,
// and throttling retried within the budget, then 503 with Retry-After.
import { verify } from "node:crypto";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKmsKey, createKmsSigner, kmsClientFor, type KmsKeySpec } from "#adapters/kms-signer.ts";
import { localIdentityFiles } from "#adapters/local-identity-store.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { certificateChainFileName, certificateChainPem } from "#domain/signing/identity-store.ts";
import { createKmsIdentityStore, kmsRootCommonName } from "#domain/signing/kms-identity-store.ts";
import { publicKeyFingerprint, type Signer } from "#domain/pki/signer.ts";
import { generateIdentity } from "#domain/signing/signing-identity.ts";
import { startKmsStandIn, type KmsStandIn } from "#local/kms-stand-in.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { pyhankoValidate } from "#test/helpers/signature-checks.ts";

let kms: KmsStandIn;
let dataDir: string;
const client = () => kmsClientFor({ region: "us-east-1", endpoint: kms.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
const budget = { budgetMs: 2_000, firstBackoffMs: 10, callTimeoutMs: 2_000 };

beforeAll(async () => {
  dataDir = scratchDir("kms-stand-in");
  kms = await startKmsStandIn({ dataDir });
});
afterAll(() => kms?.close());

async function signerFor(spec: KmsKeySpec | "ECC_NIST_P384", options: Partial<typeof budget> = {}): Promise<Signer> {
  const keyId = await createKmsKey(client(), spec as KmsKeySpec, `test ${spec}`);
  return createKmsSigner({ keyId, client: client(), ...budget, ...options });
}

describe("the KMS signer (stand-in, real SDK client)", () => {
  it.each([
    ["RSA_3072", "RSASSA_PKCS1_V1_5_SHA_256", "sha256", 384],
    ["ECC_NIST_P256", "ECDSA_SHA_256", "sha256", undefined],
    ["ECC_NIST_P384", "ECDSA_SHA_384", "sha384", undefined],
  ] as const)("%s signs the digest with %s, which node verifies over the data", async (spec, algorithm, hash, length) => {
    const signer = await signerFor(spec);
    expect(signer.algorithm).toBe(algorithm);
    expect(signer.location).toEqual({ kind: "kms", keyArn: expect.stringMatching(/^arn:aws:kms:us-east-1:\d{12}:key\/[0-9a-f-]{36}$/) });
    const data = Buffer.from("the DER SET OF signed attributes");
    const signature = await signer.sign(data);
    if (length) expect(signature.length).toBe(length);
    else expect(signature[0]).toBe(0x30); // ECDSA: DER SEQUENCE of r and s, as CMS wants
    expect(verify(hash, data, signer.publicKey, signature)).toBe(true);
    expect(verify(hash, Buffer.from("other data"), signer.publicKey, signature)).toBe(false);
  });

  it("keeps the stand-in's keys in the data folder, each file mode 0600", async () => {
    const signer = await signerFor("ECC_NIST_P256");
    const id = (signer.location as { keyArn: string }).keyArn.split("/").pop();
    expect(statSync(join(dataDir, `${id}.json`)).mode & 0o777).toBe(0o600);
  });

  it("an unknown key is a 503 whose cause names the key (never sent to the caller)", async () => {
    const failure = await createKmsSigner({ keyId: "00000000-0000-0000-0000-000000000000", client: client(), ...budget }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SignetError);
    expect((failure as SignetError).code).toBe("SERVICE_UNAVAILABLE");
    expect((failure as SignetError).message).not.toContain("00000000");
    expect(String(((failure as SignetError).cause as Error).message)).toMatch(/does not exist/);
  });

  it("retries ThrottlingException with back-off and then signs", async () => {
    const signer = await signerFor("ECC_NIST_P256");
    const before = kms.signCalls();
    kms.throttleSigns(3);
    const signature = await signer.sign(Buffer.from("data"));
    expect(verify("sha256", Buffer.from("data"), signer.publicKey, signature)).toBe(true);
    expect(kms.signCalls() - before).toBe(4);
  });

  it("gives up when throttling outlasts the budget: 503 SERVICE_UNAVAILABLE with Retry-After, a bounded number of attempts", async () => {
    // First back-off 10 ms doubling (full jitter) within 300 ms: at most ~log2(300/10)+2 attempts; bounded well below 20.
    const signer = await signerFor("ECC_NIST_P256", { budgetMs: 300 });
    const before = kms.signCalls();
    kms.throttleSigns(1_000);
    const failure = await signer.sign(Buffer.from("data")).catch((error: unknown) => error);
    kms.throttleSigns(0);
    expect(failure).toBeInstanceOf(SignetError);
    expect((failure as SignetError).code).toBe("SERVICE_UNAVAILABLE");
    expect((failure as SignetError).retryAfterSeconds).toBe(1);
    const attempts = kms.signCalls() - before;
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThan(20);
  });

  it("a retry that the budget cuts short is still throttling: 503 with Retry-After, not an unusable key", async () => {
    // Each answer takes 200 ms: the first throttled answer leaves under 100 ms of the 300 ms budget for the retry.
    const signer = await signerFor("ECC_NIST_P256", { budgetMs: 300 });
    kms.throttleSigns(1_000);
    kms.delaySigns(200);
    const failure = await signer.sign(Buffer.from("data")).catch((error: unknown) => error);
    kms.throttleSigns(0);
    kms.delaySigns(0);
    expect(failure).toBeInstanceOf(SignetError);
    expect((failure as SignetError).code).toBe("SERVICE_UNAVAILABLE");
    expect((failure as SignetError).retryAfterSeconds).toBe(1);
    expect(String(((failure as SignetError).cause as Error).message)).toMatch(/ThrottlingException for 300 ms/);
  });

  it("a KMS that does not answer within the call time-out (no throttling) is an unusable key: 503 without Retry-After", async () => {
    const signer = await signerFor("ECC_NIST_P256", { callTimeoutMs: 100 });
    kms.delaySigns(400);
    const failure = await signer.sign(Buffer.from("data")).catch((error: unknown) => error);
    kms.delaySigns(0);
    expect(failure).toBeInstanceOf(SignetError);
    expect((failure as SignetError).code).toBe("SERVICE_UNAVAILABLE");
    expect((failure as SignetError).retryAfterSeconds).toBeUndefined();
    expect(String(((failure as SignetError).cause as Error).message)).toMatch(/did not answer in time/);
  });
});

describe("the KMS identity store", () => {
  it("issues the root and signing certificates at first use, both signed in KMS, and keeps them", async () => {
    const dir = scratchDir("kms-identity");
    const [signing, root] = await Promise.all([signerFor("RSA_3072"), signerFor("ECC_NIST_P256")]);
    const options = { signer: async () => signing, root: async () => root, crlUrl: () => "http://127.0.0.1:1/v1/verify/crl", noRevocationHint: "none" };
    const identity = await createKmsIdentityStore(localIdentityFiles(dir), options).load();
    expect(identity.certificate.publicKey.equals(signing.publicKey)).toBe(true);
    expect(identity.chain[0]!.subject).toBe(`CN=${kmsRootCommonName}`);
    expect(identity.certificate.verify(root.publicKey)).toBe(true);
    expect(identity.chain[0]!.verify(root.publicKey)).toBe(true);
    expect(identity.crlIssuer?.signer).toBe(root);
    expect(identity.revocationProblem).toBeUndefined();
    expect(statSync(join(dir, certificateChainFileName)).mode & 0o777).toBe(0o600);
    const again = await createKmsIdentityStore(localIdentityFiles(dir), options).load();
    expect(again.certificate.fingerprint256).toBe(identity.certificate.fingerprint256);
  });

  it("refuses a certificate that does not certify the KMS key, naming both fingerprints", async () => {
    const dir = scratchDir("kms-mismatch");
    const signing = await signerFor("ECC_NIST_P256");
    const stranger = await generateIdentity({ keyType: "EC" });
    await localIdentityFiles(dir).createIfAbsent(certificateChainFileName, certificateChainPem(stranger));
    const failure = await createKmsIdentityStore(localIdentityFiles(dir), { signer: async () => signing, crlUrl: () => undefined, noRevocationHint: "none" })
      .load()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SignetError);
    const message = (failure as SignetError).message;
    expect(message).toContain(publicKeyFingerprint(stranger.certificate.publicKey));
    expect(message).toContain(publicKeyFingerprint(signing.publicKey));
  });

  it("without a root key and without a certificate, says how to get one", async () => {
    const signing = await signerFor("ECC_NIST_P256");
    const failure = await createKmsIdentityStore(localIdentityFiles(scratchDir("kms-none")), {
      signer: async () => signing,
      crlUrl: () => undefined,
      noRevocationHint: "none",
    })
      .load()
      .catch((error: unknown) => error);
    expect((failure as SignetError).message).toMatch(/has no certificate yet/);
    expect(String(((failure as SignetError).cause as Error).message)).toMatch(/SIGNET_KMS_ROOT_KEY_ID/);
  });
});

describe("PAdES through KMS", () => {
  it.each(["RSA_3072", "ECC_NIST_P256", "ECC_NIST_P384"] as const)(
    "a %s signing key: the CMS digest and signature algorithms match the key, pyHanko validates and trusts it",
    async (spec) => {
      const dir = scratchDir(`kms-pades-${spec}`);
      const [signing, root] = await Promise.all([signerFor(spec), signerFor("RSA_3072")]);
      const identity = await createKmsIdentityStore(localIdentityFiles(dir), {
        signer: async () => signing,
        root: async () => root,
        crlUrl: () => undefined,
        noRevocationHint: "none",
      }).load();
      const signed = await signPdf(await makePdf(1), { identity, signingTime: new Date(), signerName: "Ada Lovelace", reason: "test" });
      writeFileSync(join(dir, "root.pem"), identity.chain[0]!.toString());
      const report = pyhankoValidate(signed, [join(dir, "root.pem")]);
      expect(report.allHold, report.output).toBe(true);
      expect(report.signatures).toMatchObject([{ intact: true, valid: true, trusted: true }]);
    },
  );
});

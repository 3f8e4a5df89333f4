// npm run identity:csr -- ["Common Name"] > signet.csr
//   A PKCS#10 certificate signing request for the KMS signing key (SIGNET_KMS_KEY_ID), signed in
//   KMS: the key never leaves it. Give it to your CA.
// npm run identity:install-cert -- chain.pem
//   Installs the CA's certificate chain (leaf first, or in any order) as identity-chain.pem in the
//   identity bucket (SIGNET_IDENTITY_BUCKET) or <SIGNET_DATA_DIR>/identity, after checking that the
//   leaf certifies the KMS key (else both fingerprints, exit 1) and that the chain links up.
// SIGNET_KMS_KEY_ID=local uses the local server's KMS stand-in keys in <SIGNET_DATA_DIR>/kms.
import { X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { createKmsSigner, kmsClientFor, kmsSignerDefaults } from "#adapters/kms-signer.ts";
import { certificationRequest } from "#domain/pki/csr.ts";
import { certificateChainFileName, certificateChainPem } from "#domain/signing/identity-store.ts";
import { kmsSigningCommonName } from "#domain/signing/kms-identity-store.ts";
import { KeyMismatchError, checkCertificateMatches, type Signer } from "#domain/pki/signer.ts";
import { startLocalKms, type LocalKms } from "#local/local-kms.ts";

const usage = 'usage: npm run identity:csr -- ["Common Name"] > signet.csr\n       npm run identity:install-cert -- chain.pem\n';
const dataDir = resolve(process.env.SIGNET_DATA_DIR ?? ".signet");

/** signingKey opens the KMS signing key: the configured one, or the local stand-in's. */
async function signingKey(): Promise<{ signer: Signer; local?: LocalKms }> {
  const keyId = process.env.SIGNET_KMS_KEY_ID;
  if (!keyId) throw new Error("SIGNET_KMS_KEY_ID is not set: give the KMS signing key's id, ARN or alias (local: the local server's stand-in)");
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? "us-east-1";
  if (keyId !== "local") return { signer: await createKmsSigner({ keyId, client: kmsClientFor({ region }), ...kmsSignerDefaults }) };
  const local = await startLocalKms(join(dataDir, "kms"));
  const client = kmsClientFor({
    region: "us-east-1",
    endpoint: local.env.SIGNET_KMS_ENDPOINT,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  return { signer: await createKmsSigner({ keyId: local.env.SIGNET_KMS_KEY_ID!, client, ...kmsSignerDefaults }), local };
}

/** orderChain puts the certificate of the key first and each issuer after the certificate it issued; certificates off the path are refused. */
function orderChain(certificates: X509Certificate[], signer: Signer): X509Certificate[] {
  const leaf = certificates.find((certificate) => certificate.publicKey.equals(signer.publicKey));
  if (!leaf) checkCertificateMatches(certificates[0]!, signer); // throws KeyMismatchError naming both fingerprints
  const chain = [leaf!];
  const rest = certificates.filter((certificate) => certificate !== leaf);
  while (rest.length > 0) {
    const current = chain.at(-1)!;
    const index = rest.findIndex((candidate) => current.checkIssued(candidate) && current.verify(candidate.publicKey));
    if (index < 0) throw new Error(`the chain does not link up: no certificate in the file issued "${current.subject.replace(/\n/g, ", ")}"`);
    chain.push(...rest.splice(index, 1));
  }
  return chain;
}

async function installCertificate(file: string, signer: Signer): Promise<string> {
  const blocks = readFileSync(file, "utf8").match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${file} holds no PEM certificate`);
  const [certificate, ...chain] = orderChain(
    blocks.map((block) => new X509Certificate(block)),
    signer,
  ) as [X509Certificate, ...X509Certificate[]];
  const pem = certificateChainPem({ certificate, chain, keyType: signer.algorithm === "RSASSA_PKCS1_V1_5_SHA_256" ? "RSA" : "EC" });
  const bucket = process.env.SIGNET_IDENTITY_BUCKET;
  if (bucket) {
    const s3 = new S3Client({ region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? "us-east-1" });
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: certificateChainFileName, Body: pem, ContentType: "application/x-pem-file" }));
    return `s3://${bucket}/${certificateChainFileName}`;
  }
  const dir = join(dataDir, "identity");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, certificateChainFileName), pem, { mode: 0o600 });
  return join(dir, certificateChainFileName);
}

const [command, argument] = process.argv.slice(2);
let local: LocalKms | undefined;
try {
  if (command !== "csr" && command !== "install-cert") throw Object.assign(new Error(usage), { usage: true });
  if (command === "install-cert" && !argument) throw Object.assign(new Error(usage), { usage: true });
  const opened = await signingKey();
  local = opened.local;
  if (command === "csr") {
    process.stdout.write(await certificationRequest(opened.signer, argument ?? kmsSigningCommonName));
    process.stderr.write(`A certificate signing request for ${JSON.stringify(opened.signer.location)}, signed in KMS.\n`);
  } else {
    const where = await installCertificate(argument!, opened.signer);
    process.stderr.write(
      `Installed the chain at ${where}; restart the local server (on AWS: the sign function's containers reload it when recycled or redeployed).\n`,
    );
  }
} catch (error) {
  const usageError = (error as { usage?: boolean }).usage;
  const cause = error instanceof KeyMismatchError ? error.message : (error as Error).message;
  const detail = (error as { cause?: Error }).cause?.message;
  process.stderr.write(usageError ? usage : `${cause}${detail && !cause.includes(detail) ? ` (${detail})` : ""}\n`);
  process.exitCode = usageError ? 64 : 1;
} finally {
  await local?.close();
}

// The local server's KMS: the stand-in on loopback with a signing key and a root key, created on
// the first start and remembered in the data folder, so SIGNET_KMS_KEY_ID=local signs through the
// same adapter (and the real AWS SDK client) as a key in AWS KMS.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createKmsKey, kmsClientFor } from "#adapters/kms-signer.ts";
import { startKmsStandIn, type KmsStandIn } from "#local/kms-stand-in.ts";

/** LocalKms is the running stand-in and the settings that point the signing wiring at its keys. */
export interface LocalKms {
  standIn: KmsStandIn;
  /** SIGNET_KMS_ENDPOINT, SIGNET_KMS_KEY_ID and SIGNET_KMS_ROOT_KEY_ID of the stand-in's keys. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** keysFileName remembers which stand-in keys sign and certify (key ids, nothing secret). */
const keysFileName = "signet-keys.json";

/**
 * startLocalKms starts the KMS stand-in (keys in `dir`, or in memory) and makes sure it holds an
 * RSA_3072 signing key and an RSA_3072 root key, as `cdk deploy` creates them on AWS.
 */
export async function startLocalKms(dir: string | undefined): Promise<LocalKms> {
  const standIn = await startKmsStandIn(dir ? { dataDir: dir } : {});
  const file = dir ? join(dir, keysFileName) : undefined;
  let keys = file && existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { signing: string; root: string }) : undefined;
  if (!keys) {
    // The stand-in takes any credentials; the local server's are not in the environment yet.
    const client = kmsClientFor({ region: "us-east-1", endpoint: standIn.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    keys = {
      signing: await createKmsKey(client, "RSA_3072", "Signet signing key (local stand-in)"),
      root: await createKmsKey(client, "RSA_3072", "Signet root CA key (local stand-in)"),
    };
    client.destroy();
    if (file) writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    standIn,
    env: { SIGNET_KMS_ENDPOINT: standIn.endpoint, SIGNET_KMS_KEY_ID: keys.signing, SIGNET_KMS_ROOT_KEY_ID: keys.root },
    close: () => standIn.close(),
  };
}

import { createHash, createPublicKey } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { CreateKeyCommand, GetPublicKeyCommand, type GetPublicKeyCommandOutput, KMSClient, KMSServiceException, SignCommand } from "@aws-sdk/client-kms";
import { withDeadline } from "#adapters/call-deadline.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { UnsupportedKeyError, algorithmFor, signatureAlgorithms, type Signer } from "#domain/pki/signer.ts";

/**
 * kmsClientFor is a KMS client: the local stand-in's endpoint, or AWS. One attempt per call: the
 * signer retries throttling itself, within its own time budget (the SDK's retries would not know it).
 */
export function kmsClientFor(options: {
  region: string;
  endpoint?: string | undefined;
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}): KMSClient {
  return new KMSClient({
    region: options.region,
    maxAttempts: 1,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
}

/** KmsSignerOptions: which key, which client, and the time one signature may take. */
export interface KmsSignerOptions {
  /** Key id, key ARN or alias (alias/name or its ARN). */
  keyId: string;
  client: KMSClient;
  /** Most time one sign() may take, throttling retries and back-off included. */
  budgetMs: number;
  /** The first back-off after a ThrottlingException; it doubles per retry (full jitter). */
  firstBackoffMs: number;
  /** Most time one KMS request may take. */
  callTimeoutMs: number;
}

/** kmsSignerDefaults: 1 s per request; a signature gives up after 5 s of throttling (KMS quotas are per second). */
export const kmsSignerDefaults = { budgetMs: 5_000, firstBackoffMs: 50, callTimeoutMs: 2_000 } as const;

const errorName = (error: unknown): string => (error instanceof KMSServiceException || error instanceof Error ? error.name : "");

/** throttledTooLong is the answer when KMS throttles signatures for the whole budget: 503 with Retry-After. */
function throttledTooLong(keyArn: string, budgetMs: number, error: unknown): SignetError {
  return new SignetError("SERVICE_UNAVAILABLE", "The signing service is busy (AWS KMS is throttling signatures); retry in a second.", {
    retryAfterSeconds: 1,
    cause: new Error(`KMS key ${keyArn}: ThrottlingException for ${budgetMs} ms`, { cause: error }),
  });
}

/** unusableKey words a KMS refusal of the key itself (missing, disabled, no permission) for the operator. */
function unusableKey(keyId: string, error: unknown): SignetError {
  const name = errorName(error);
  const reason =
    name === "NotFoundException"
      ? "it does not exist in this account and region"
      : name === "DisabledException" || name === "KMSInvalidStateException"
        ? "it is disabled or pending deletion"
        : name === "AccessDeniedException"
          ? "this function's role may not use it (key policy or IAM)"
          : name === "TimeoutError"
            ? "AWS KMS did not answer in time"
            : "AWS KMS refused the request";
  return new SignetError("SERVICE_UNAVAILABLE", "The service's signing key in AWS KMS cannot be used right now; retry later.", {
    cause: new Error(`KMS key ${keyId}: ${reason} (${name || "unknown error"})`, { cause: error }),
  });
}

/**
 * createKmsSigner reads the key's public half (GetPublicKey: key spec, usage, algorithms) and
 * returns a Signer that signs in AWS KMS: the digest of the data with MessageType DIGEST and the
 * algorithm matching the key (RSASSA_PKCS1_V1_5_SHA_256, ECDSA_SHA_256 on P-256, ECDSA_SHA_384 on
 * P-384). A ThrottlingException (the per-account asymmetric quota is shared) is retried with
 * exponential back-off while the budget lasts, then answered 503 with Retry-After.
 */
export async function createKmsSigner(options: KmsSignerOptions): Promise<Signer> {
  const { client, keyId } = options;
  let answer: GetPublicKeyCommandOutput;
  try {
    answer = await withDeadline(options.callTimeoutMs, (abortSignal) => client.send(new GetPublicKeyCommand({ KeyId: keyId }), { abortSignal }));
  } catch (error) {
    throw unusableKey(keyId, error);
  }
  if (answer.KeyUsage !== "SIGN_VERIFY" || !answer.PublicKey) {
    throw new SignetError("SERVICE_UNAVAILABLE", "The service's signing key in AWS KMS is not a signing key.", {
      cause: new Error(`KMS key ${keyId} has KeyUsage ${answer.KeyUsage ?? "unknown"}; create an asymmetric SIGN_VERIFY key (RSA_3072 or ECC_NIST_P256)`),
    });
  }
  const publicKey = createPublicKey({ key: Buffer.from(answer.PublicKey), format: "der", type: "spki" });
  let algorithm: ReturnType<typeof algorithmFor>;
  try {
    algorithm = algorithmFor(publicKey);
  } catch (error) {
    const reason = error instanceof UnsupportedKeyError ? error.message : "unknown key type";
    throw new SignetError("SERVICE_UNAVAILABLE", "The service's signing key in AWS KMS is of a kind Signet does not sign with.", {
      cause: new Error(`KMS key ${keyId}: ${reason}`),
    });
  }
  if (answer.SigningAlgorithms && !answer.SigningAlgorithms.includes(algorithm)) {
    throw new SignetError("SERVICE_UNAVAILABLE", "The service's signing key in AWS KMS does not offer the signing algorithm Signet needs.", {
      cause: new Error(`KMS key ${keyId} offers ${answer.SigningAlgorithms.join(", ")}, not ${algorithm}`),
    });
  }
  const keyArn = answer.KeyId ?? keyId;
  const { hash } = signatureAlgorithms[algorithm];

  async function sign(data: Buffer): Promise<Buffer> {
    const digest = createHash(hash).update(data).digest();
    const deadline = Date.now() + options.budgetMs;
    let backoff = options.firstBackoffMs;
    let throttled: unknown;
    for (;;) {
      const remaining = deadline - Date.now();
      try {
        const signed = await withDeadline(Math.min(options.callTimeoutMs, Math.max(1, remaining)), (abortSignal) =>
          client.send(new SignCommand({ KeyId: keyArn, Message: digest, MessageType: "DIGEST", SigningAlgorithm: algorithm }), { abortSignal }),
        );
        if (!signed.Signature) throw new Error("KMS answered Sign without a signature");
        return Buffer.from(signed.Signature);
      } catch (error) {
        // A retry cut short by the budget is still throttling: answer busy, not "key unusable".
        if (errorName(error) !== "ThrottlingException" && (throttled === undefined || Date.now() < deadline)) throw unusableKey(keyArn, error);
        throttled = errorName(error) === "ThrottlingException" ? error : throttled;
        // Full jitter: a random wait up to the back-off, so throttled containers do not retry in step.
        const wait = Math.random() * backoff;
        if (Date.now() + wait >= deadline) throw throttledTooLong(keyArn, options.budgetMs, throttled);
        await sleep(wait);
        backoff *= 2;
      }
    }
  }

  return { algorithm, publicKey, location: { kind: "kms", keyArn }, sign };
}

/** KmsKeySpec is a key spec Signet creates: RSA_3072 (the default) or ECC_NIST_P256. */
export type KmsKeySpec = "RSA_3072" | "ECC_NIST_P256";

/** createKmsKey creates an asymmetric SIGN_VERIFY key (the local stand-in; on AWS the stack creates the keys) and returns its ARN. */
export async function createKmsKey(client: KMSClient, spec: KmsKeySpec, description: string): Promise<string> {
  const answer = await client.send(new CreateKeyCommand({ KeySpec: spec, KeyUsage: "SIGN_VERIFY", Description: description }));
  return answer.KeyMetadata!.Arn!;
}

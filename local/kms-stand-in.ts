// A small AWS KMS stand-in for the local server and the tests: the KMS JSON protocol (awsJson1_1,
// X-Amz-Target TrentService.*) for what Signet uses: CreateKey (RSA_3072, ECC_NIST_P256 and
// ECC_NIST_P384, SIGN_VERIFY), DescribeKey, GetPublicKey and Sign (RAW or DIGEST). Keys are kept
// in the data folder (one file per key, mode 0600) or in memory, and the real AWS SDK client
// talks to it as to KMS. No KMS emulator on npm covers asymmetric signing (local-kms is a Go
// binary; moto is Python), hence this.
import {
  type KeyObject,
  constants,
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  privateEncrypt,
  randomBytes,
  randomUUID,
} from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** KmsStandIn is a running stand-in. */
export interface KmsStandIn {
  endpoint: string;
  /** Fault injection for tests: the next `count` Sign calls answer ThrottlingException. */
  throttleSigns(count: number): void;
  /** Fault injection for tests: every Sign call answers after `ms` milliseconds (0: at once), a slow KMS. */
  delaySigns(ms: number): void;
  /** Sign calls answered so far (throttled ones included). */
  signCalls(): number;
  close(): Promise<void>;
}

/** KmsStandInOptions: where keys live (memory when no folder), the port (0 picks a free one), the region and account in ARNs. */
export interface KmsStandInOptions {
  dataDir?: string;
  port?: number;
  region?: string;
  account?: string;
}

type KeySpec = "RSA_3072" | "ECC_NIST_P256" | "ECC_NIST_P384";

/** specs are the key specs the stand-in makes, with the signing algorithms KMS offers for them that it implements. */
const specs: Record<KeySpec, { generate: () => KeyObject; algorithms: string[] }> = {
  RSA_3072: { generate: () => generateKeyPairSync("rsa", { modulusLength: 3072 }).privateKey, algorithms: ["RSASSA_PKCS1_V1_5_SHA_256"] },
  ECC_NIST_P256: { generate: () => generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey, algorithms: ["ECDSA_SHA_256"] },
  ECC_NIST_P384: { generate: () => generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey, algorithms: ["ECDSA_SHA_384"] },
};

const digestLength: Record<string, { hash: string; bytes: number }> = {
  RSASSA_PKCS1_V1_5_SHA_256: { hash: "sha256", bytes: 32 },
  ECDSA_SHA_256: { hash: "sha256", bytes: 32 },
  ECDSA_SHA_384: { hash: "sha384", bytes: 48 },
};

interface StoredKey {
  keyId: string;
  spec: KeySpec;
  description: string;
  created: number;
  privateKeyPem: string;
}

/** KmsError is a refusal in KMS's words: the exception name (__type) and a message. */
class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

// SHA-256 DigestInfo prefix (RFC 8017 9.2 note 1): RSASSA-PKCS1-v1.5 signs DigestInfo(digest).
const SHA256_DIGEST_INFO = Buffer.from("3031300d060960864801650304020105000420", "hex");
const curves = {
  prime256v1: { n: BigInt("0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"), bytes: 32 },
  secp384r1: {
    n: BigInt("0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973"),
    bytes: 48,
  },
} as const;

const toBig = (bytes: Buffer) => BigInt(`0x${bytes.toString("hex") || "0"}`);
const modPow = (base: bigint, exponent: bigint, modulus: bigint): bigint => {
  let result = 1n;
  let b = base % modulus;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
  }
  return result;
};
const derInteger = (value: bigint) => {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  const bytes = Buffer.from(hex, "hex");
  return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
};

/**
 * signDigest signs an already computed digest, as KMS does for MessageType DIGEST: RSA
 * PKCS#1 v1.5 over DigestInfo, or ECDSA (DER r,s), since node's sign() always hashes its input.
 * The ECDSA point multiplication k*G is OpenSSL's (ECDH with k as the private key).
 */
function signDigest(key: KeyObject, digest: Buffer): Buffer {
  if (key.asymmetricKeyType === "rsa") return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, digest]));
  const curveName = key.asymmetricKeyDetails?.namedCurve as keyof typeof curves;
  const curve = curves[curveName];
  const d = toBig(Buffer.from(key.export({ format: "jwk" }).d!, "base64url"));
  const z = toBig(digest);
  for (;;) {
    const k = toBig(randomBytes(curve.bytes + 8)) % curve.n;
    if (k === 0n) continue;
    const ecdh = createECDH(curveName);
    ecdh.setPrivateKey(Buffer.from(k.toString(16).padStart(curve.bytes * 2, "0"), "hex"));
    const r = toBig(ecdh.getPublicKey().subarray(1, 1 + curve.bytes)) % curve.n;
    if (r === 0n) continue;
    const s = (modPow(k, curve.n - 2n, curve.n) * ((z + r * d) % curve.n)) % curve.n;
    if (s === 0n) continue;
    const body = Buffer.concat([derInteger(r), derInteger(s)]);
    return Buffer.concat([Buffer.from([0x30, body.length]), body]);
  }
}

/** KeyStore keeps the stand-in's keys, in memory or as files (0600) in a folder (0700). */
class KeyStore {
  private readonly keys = new Map<string, StoredKey>();
  constructor(private readonly dir: string | undefined) {
    if (!dir) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir).filter((file) => file.endsWith(".json"))) {
      const key = JSON.parse(readFileSync(join(dir, name), "utf8")) as StoredKey;
      this.keys.set(key.keyId, key);
    }
  }

  create(spec: KeySpec, description: string): StoredKey {
    const key: StoredKey = {
      keyId: randomUUID(),
      spec,
      description,
      created: Math.floor(Date.now() / 1000),
      privateKeyPem: specs[spec].generate().export({ type: "pkcs8", format: "pem" }).toString(),
    };
    if (this.dir) writeFileSync(join(this.dir, `${key.keyId}.json`), JSON.stringify(key), { mode: 0o600, flag: "wx" });
    this.keys.set(key.keyId, key);
    return key;
  }

  /** find resolves a key id or key ARN; aliases are not implemented (NotFoundException). */
  find(keyId: unknown): StoredKey {
    if (typeof keyId !== "string" || keyId === "")
      throw new KmsError("ValidationException", "1 validation error detected: Value null at 'keyId' failed to satisfy constraint: Member must not be null");
    const id = keyId.startsWith("arn:") ? keyId.slice(keyId.lastIndexOf("/") + 1) : keyId;
    const key = this.keys.get(id);
    if (!key) throw new KmsError("NotFoundException", `Key '${keyId}' does not exist`);
    return key;
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/x-amz-json-1.1",
    "Content-Length": Buffer.byteLength(text),
    "x-amzn-RequestId": randomUUID(),
    ...headers,
  });
  res.end(text);
}

/** KmsOperations answers the KMS calls Signet makes (CreateKey, DescribeKey, GetPublicKey, Sign) from a KeyStore. */
class KmsOperations {
  /** throttled is how many coming Sign calls fail with ThrottlingException. */
  throttled = 0;
  /** signs counts the Sign calls, throttled ones included. */
  signs = 0;
  /** signDelayMs is how long each Sign call waits before it answers. */
  signDelayMs = 0;

  constructor(
    private readonly store: KeyStore,
    private readonly region: string,
    private readonly account: string,
  ) {}

  /** run dispatches one call by its X-Amz-Target operation name. */
  run(operation: string, input: Record<string, unknown>): unknown {
    switch (operation) {
      case "CreateKey":
        return this.createKey(input);
      case "DescribeKey":
        return { KeyMetadata: this.metadata(this.store.find(input.KeyId)) };
      case "GetPublicKey":
        return this.getPublicKey(input);
      case "Sign":
        return this.sign(input);
      default:
        throw new KmsError("UnknownOperationException", `The stand-in does not implement TrentService.${operation}`);
    }
  }

  private arn(key: StoredKey): string {
    return `arn:aws:kms:${this.region}:${this.account}:key/${key.keyId}`;
  }

  private metadata(key: StoredKey) {
    return {
      AWSAccountId: this.account,
      KeyId: key.keyId,
      Arn: this.arn(key),
      CreationDate: key.created,
      Enabled: true,
      Description: key.description,
      KeyUsage: "SIGN_VERIFY",
      KeyState: "Enabled",
      Origin: "AWS_KMS",
      KeyManager: "CUSTOMER",
      CustomerMasterKeySpec: key.spec,
      KeySpec: key.spec,
      SigningAlgorithms: specs[key.spec].algorithms,
      MultiRegion: false,
    };
  }

  private createKey(input: Record<string, unknown>) {
    const spec = (input.KeySpec ?? input.CustomerMasterKeySpec ?? "SYMMETRIC_DEFAULT") as string;
    if (!(spec in specs)) throw new KmsError("UnsupportedOperationException", `The stand-in makes only ${Object.keys(specs).join(", ")} keys, not ${spec}`);
    if (input.KeyUsage !== "SIGN_VERIFY") throw new KmsError("ValidationException", `KeyUsage must be SIGN_VERIFY for ${spec} keys in the stand-in`);
    return { KeyMetadata: this.metadata(this.store.create(spec as KeySpec, typeof input.Description === "string" ? input.Description : "")) };
  }

  private getPublicKey(input: Record<string, unknown>) {
    const key = this.store.find(input.KeyId);
    const publicKey = createPublicKey(key.privateKeyPem).export({ type: "spki", format: "der" });
    return {
      KeyId: this.arn(key),
      PublicKey: publicKey.toString("base64"),
      CustomerMasterKeySpec: key.spec,
      KeySpec: key.spec,
      KeyUsage: "SIGN_VERIFY",
      SigningAlgorithms: specs[key.spec].algorithms,
    };
  }

  private sign(input: Record<string, unknown>) {
    this.signs++;
    if (this.throttled > 0) {
      this.throttled--;
      throw new KmsError("ThrottlingException", "Rate exceeded");
    }
    const key = this.store.find(input.KeyId);
    const algorithm = String(input.SigningAlgorithm);
    if (!specs[key.spec].algorithms.includes(algorithm)) {
      throw new KmsError("InvalidKeyUsageException", `You cannot use the signing algorithm ${algorithm} with key ${this.arn(key)}`);
    }
    const message = Buffer.from(String(input.Message ?? ""), "base64");
    const { hash, bytes } = digestLength[algorithm]!;
    const type = input.MessageType ?? "RAW";
    if (type === "RAW" && message.length > 4096) throw new KmsError("ValidationException", "Message must be at most 4096 bytes; sign a digest instead");
    if (type === "DIGEST" && message.length !== bytes) {
      throw new KmsError("ValidationException", `Digest is invalid length for algorithm ${algorithm}.`);
    }
    const digest = type === "DIGEST" ? message : createHash(hash).update(message).digest();
    const signature = signDigest(createPrivateKey(key.privateKeyPem), digest);
    return { KeyId: this.arn(key), Signature: signature.toString("base64"), SigningAlgorithm: algorithm };
  }
}

/** answer serves one request: a signed POST naming a TrentService operation, answered in KMS's JSON error layout on failure. */
async function answer(operations: KmsOperations, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readAll(req);
  const target = String(req.headers["x-amz-target"] ?? "");
  try {
    // Like the other stand-ins it trusts loopback, but insists on a signed request as KMS does.
    if (!req.headers.authorization) throw new KmsError("MissingAuthenticationTokenException", "Request is missing Authentication Token");
    if (req.method !== "POST" || !target.startsWith("TrentService.")) {
      throw new KmsError("UnknownOperationException", `The stand-in does not implement ${target || "this request"}`);
    }
    if (target === "TrentService.Sign" && operations.signDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, operations.signDelayMs));
    send(res, 200, operations.run(target.slice("TrentService.".length), JSON.parse(body.toString("utf8") || "{}") as Record<string, unknown>));
  } catch (error) {
    const known = error instanceof KmsError ? error : new KmsError("KMSInternalException", "The stand-in failed.");
    send(res, known.type === "KMSInternalException" ? 500 : 400, { __type: known.type, message: known.message }, { "x-amzn-ErrorType": known.type });
  }
}

/** startKmsStandIn serves the stand-in on 127.0.0.1. */
export async function startKmsStandIn(options: KmsStandInOptions = {}): Promise<KmsStandIn> {
  const operations = new KmsOperations(new KeyStore(options.dataDir), options.region ?? "us-east-1", options.account ?? "000000000000");
  const server = http.createServer((req, res) => void answer(operations, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    throttleSigns(count) {
      operations.throttled = count;
    },
    delaySigns(ms) {
      operations.signDelayMs = ms;
    },
    signCalls: () => operations.signs,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

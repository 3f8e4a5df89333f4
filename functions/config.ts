import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { DocumentLimits } from "#domain/shared/document.ts";
import { REGISTER_DAILY_WINDOW_SECONDS } from "#domain/keys/rate-limit.ts";
import { parseRegisterPolicy, type RegisterPolicy } from "#domain/keys/register-policy.ts";

/** Limits are the size and count caps of SPEC section 7; every one is configurable. */
export interface Limits {
  /** Largest raw request body the pipeline accepts (JSON or multipart), in bytes. */
  maxRequestBytes: number;
  /** Largest decoded document (base64, URL or upload), in bytes. */
  maxDocumentBytes: number;
  /** Total uncompressed size of a DOCX (zip-bomb guard), in bytes. */
  maxDocxUncompressedBytes: number;
  /** Entries in a DOCX zip (zip-bomb guard). */
  maxDocxEntries: number;
  /** Content controls (w:sdt) in one DOCX (annotate), nested ones included. */
  maxDocxControls: number;
  /** XML elements in all XML parts of one DOCX together (annotate). */
  maxDocxXmlNodes: number;
  /** XML elements inside the content controls of one DOCX (annotate parses these into a DOM). */
  maxDocxControlNodes: number;
  maxImageBytes: number;
  /** All images of one annotate call together (after removing repeated values), in bytes. */
  maxTotalImageBytes: number;
  maxFields: number;
  maxAuditEvents: number;
  maxMetadataBytes: number;
  maxJsonDepth: number;
  /** Pages of a PDF to sign or verify. */
  maxPdfPages: number;
}

/** Config is every setting of Signet, read once per container from the environment. */
export interface Config {
  version: string;
  /** "aws" inside Lambda, "local" for the local server and the tests. */
  runtime: "aws" | "local";
  region: string;
  limits: Limits;
  /** The limits in the shape resolveDocument and the zip guard take (derived from limits). */
  documentLimits: DocumentLimits;
  fetch: {
    /** Allow plain http:// URLs (local use only). */
    allowHttp: boolean;
    timeoutMs: number;
    maxRedirects: number;
  };
  cors: { origin: string };
  http: {
    /**
     * Time for a request's headers and body to arrive (local server), in ms; a client that
     * withholds or trickles them gets 408. The handler's own work is not counted.
     */
    requestTimeoutMs: number;
    /**
     * Local server: seconds an allowing API-key decision is reused for the same Authorization
     * header, as API Gateway caches the authorizer's answer (the stack's resultsCacheTtl, 60 s).
     * 0 (the default) asks the key store on every request.
     */
    authorizerCacheSeconds: number;
  };
  /** The API's public base URL for links in e-mails (SIGNET_PUBLIC_URL); derived from the request when unset. */
  publicUrl?: string;
  keys: {
    tableName: string;
    /** Endpoint of a DynamoDB-compatible store (dynalite locally); unset on AWS. */
    dynamodbEndpoint?: string;
    /** Register calls (codes sent) allowed per source IP in a sliding window. */
    registerPerIp: { limit: number; windowSeconds: number };
    /** Register calls (codes sent) allowed per address in a sliding 24 hours (besides SPEC 6's 3 per 15 minutes). */
    registerPerAddressDaily: { limit: number; windowSeconds: number };
    /** Requests one API key may make per minute on authorised routes (SIGNET_KEY_RATE_LIMIT). */
    ratePerMinute: number;
    /** Who may register (SIGNET_REGISTER_ALLOW: addresses and domains; open when unset). */
    registerPolicy: RegisterPolicy;
  };
  mail: {
    sender: string;
    /** Endpoint of an SES v2 compatible API (aws-ses-v2-local); unset on AWS. */
    sesEndpoint?: string;
  };
  identity: {
    /** S3 bucket holding the signing identity (AWS). */
    bucket?: string;
    /** Folder holding the signing identity (local). */
    dataDir: string;
    /** Password of an operator-supplied identity.p12 (empty when unset; local). */
    p12Password: string;
    /** SSM Parameter Store SecureString holding that password (AWS): read once per container, never in the environment. */
    p12PasswordParameter?: string;
  };
  signing: {
    /** Folder of the certificate page's TTF fonts (assets/fonts in the repository). */
    fontsDir: string;
    tsaUrl?: string;
    /** Extra trust anchors for /v1/verify, PEM file path. */
    trustAnchorsFile?: string;
  };
  // --- uploads (issue 15) ---
  uploads: {
    /** Bucket of uploaded documents (SIGNET_UPLOADS_BUCKET); "signet-uploads" locally, unset on functions that take no uploads. */
    bucket?: string;
    /** Endpoint of an S3-compatible store (the local stand-in); unset on AWS. */
    s3Endpoint?: string;
    /** Seconds a presigned upload POST is valid. */
    postExpirySeconds: number;
    /** Seconds after issue an upload reference may be used. */
    referenceTtlSeconds: number;
  };
  // --- end uploads ---
  conversion: {
    /** Path of soffice; found on PATH or in the Lambda locations when unset. */
    soffice?: string;
    timeoutMs: number;
    concurrency: number;
    queueLength: number;
    /** Keep one LibreOffice running per worker (warm) or start one per conversion. */
    mode: "warm" | "oneshot";
  };
}

const MB = 1024 * 1024;

const defaultLimits: Limits = {
  maxRequestBytes: 36 * MB,
  maxDocumentBytes: 25 * MB,
  maxDocxUncompressedBytes: 200 * MB,
  maxDocxEntries: 5000,
  maxDocxControls: 2000,
  maxDocxXmlNodes: 200_000,
  maxDocxControlNodes: 10_000,
  maxImageBytes: 10 * MB,
  maxTotalImageBytes: 50 * MB,
  maxFields: 500,
  maxAuditEvents: 10_000,
  maxMetadataBytes: 16 * 1024,
  maxJsonDepth: 32,
  maxPdfPages: 10_000,
};

type Env = Record<string, string | undefined>;

function readInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`Configuration error: ${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

function readCount(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`Configuration error: ${name} must be 0 or a positive integer, got "${raw}"`);
  }
  return value;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "no"].includes(raw.toLowerCase())) return false;
  throw new Error(`Configuration error: ${name} must be true or false, got "${raw}"`);
}

function required(env: Env, name: string, runtime: Config["runtime"], localDefault: string): string {
  const raw = env[name];
  if (raw) return raw;
  if (runtime === "local") return localDefault;
  throw new Error(`Configuration error: ${name} is required when running on AWS`);
}

function readRegisterPolicy(env: Env): RegisterPolicy {
  try {
    return parseRegisterPolicy(env.SIGNET_REGISTER_ALLOW);
  } catch (error) {
    throw new Error(`Configuration error: SIGNET_REGISTER_ALLOW lists addresses and domains separated by commas: ${(error as Error).message}`);
  }
}

function packageVersion(): string {
  // Bundled Lambdas get the version injected by esbuild (infra); locally package.json is read.
  if (typeof process.env.SIGNET_VERSION === "string" && process.env.SIGNET_VERSION) return process.env.SIGNET_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    return pkg.version;
  } catch {
    return "0.0.0";
  }
}

/** loadConfig reads the settings from an environment; it throws on a bad or missing value. */
export function loadConfig(env: Env = process.env): Config {
  const runtime: Config["runtime"] = env.AWS_LAMBDA_FUNCTION_NAME ? "aws" : "local";
  const limits: Limits = {
    ...defaultLimits,
    maxRequestBytes: readInt(env, "SIGNET_MAX_REQUEST_BYTES", defaultLimits.maxRequestBytes),
    maxDocumentBytes: readInt(env, "SIGNET_MAX_DOCUMENT_BYTES", defaultLimits.maxDocumentBytes),
    maxDocxUncompressedBytes: readInt(env, "SIGNET_MAX_DOCX_UNCOMPRESSED_BYTES", defaultLimits.maxDocxUncompressedBytes),
    maxDocxEntries: readInt(env, "SIGNET_MAX_DOCX_ENTRIES", defaultLimits.maxDocxEntries),
    maxDocxControls: readInt(env, "SIGNET_MAX_DOCX_CONTROLS", defaultLimits.maxDocxControls),
    maxDocxXmlNodes: readInt(env, "SIGNET_MAX_DOCX_XML_NODES", defaultLimits.maxDocxXmlNodes),
    maxDocxControlNodes: readInt(env, "SIGNET_MAX_DOCX_CONTROL_NODES", defaultLimits.maxDocxControlNodes),
    maxImageBytes: readInt(env, "SIGNET_MAX_IMAGE_BYTES", defaultLimits.maxImageBytes),
    maxTotalImageBytes: readInt(env, "SIGNET_MAX_TOTAL_IMAGE_BYTES", defaultLimits.maxTotalImageBytes),
    maxFields: readInt(env, "SIGNET_MAX_FIELDS", defaultLimits.maxFields),
    maxAuditEvents: readInt(env, "SIGNET_MAX_AUDIT_EVENTS", defaultLimits.maxAuditEvents),
    maxMetadataBytes: readInt(env, "SIGNET_MAX_METADATA_BYTES", defaultLimits.maxMetadataBytes),
    maxJsonDepth: readInt(env, "SIGNET_MAX_JSON_DEPTH", defaultLimits.maxJsonDepth),
    maxPdfPages: readInt(env, "SIGNET_MAX_PDF_PAGES", defaultLimits.maxPdfPages),
  };
  const mode = env.SIGNET_CONVERSION_MODE ?? "warm";
  if (mode !== "warm" && mode !== "oneshot") {
    throw new Error(`Configuration error: SIGNET_CONVERSION_MODE must be "warm" or "oneshot", got "${mode}"`);
  }
  const dataDir = env.SIGNET_DATA_DIR ?? (runtime === "aws" ? "/tmp/signet" : ".signet");
  return {
    version: packageVersion(),
    runtime,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1",
    limits,
    documentLimits: {
      maxDocumentBytes: limits.maxDocumentBytes,
      maxEntries: limits.maxDocxEntries,
      maxUncompressedBytes: limits.maxDocxUncompressedBytes,
      maxPdfPages: limits.maxPdfPages,
    },
    fetch: {
      allowHttp: readBool(env, "SIGNET_ALLOW_HTTP", false),
      timeoutMs: readInt(env, "SIGNET_FETCH_TIMEOUT_MS", 10_000),
      maxRedirects: 3,
    },
    cors: { origin: env.SIGNET_CORS_ORIGIN ?? "*" },
    http: {
      requestTimeoutMs: readInt(env, "SIGNET_REQUEST_TIMEOUT_MS", 60_000),
      authorizerCacheSeconds: readCount(env, "SIGNET_AUTHORIZER_CACHE_SECONDS", 0),
    },
    ...(env.SIGNET_PUBLIC_URL ? { publicUrl: env.SIGNET_PUBLIC_URL.replace(/\/+$/, "") } : {}),
    keys: {
      tableName: required(env, "SIGNET_TABLE", runtime, "signet"),
      ...(env.SIGNET_DYNAMODB_ENDPOINT ? { dynamodbEndpoint: env.SIGNET_DYNAMODB_ENDPOINT } : {}),
      registerPerIp: {
        limit: readInt(env, "SIGNET_REGISTER_IP_LIMIT", 20),
        windowSeconds: readInt(env, "SIGNET_REGISTER_IP_WINDOW_SECONDS", 3600),
      },
      registerPerAddressDaily: { limit: readInt(env, "SIGNET_REGISTER_DAILY_LIMIT", 10), windowSeconds: REGISTER_DAILY_WINDOW_SECONDS },
      ratePerMinute: readInt(env, "SIGNET_KEY_RATE_LIMIT", 60),
      registerPolicy: readRegisterPolicy(env),
    },
    mail: {
      sender: required(env, "SIGNET_SENDER_EMAIL", runtime, "noreply@signet.local"),
      ...(env.SIGNET_SES_ENDPOINT ? { sesEndpoint: env.SIGNET_SES_ENDPOINT } : {}),
    },
    identity: {
      ...(env.SIGNET_IDENTITY_BUCKET ? { bucket: env.SIGNET_IDENTITY_BUCKET } : {}),
      dataDir,
      p12Password: env.SIGNET_IDENTITY_P12_PASSWORD ?? "",
      ...(env.SIGNET_IDENTITY_P12_PASSWORD_PARAMETER ? { p12PasswordParameter: env.SIGNET_IDENTITY_P12_PASSWORD_PARAMETER } : {}),
    },
    signing: {
      fontsDir: env.SIGNET_FONTS_DIR ?? fileURLToPath(new URL("../assets/fonts/", import.meta.url)),
      ...(env.SIGNET_TSA_URL ? { tsaUrl: env.SIGNET_TSA_URL } : {}),
      ...(env.SIGNET_TRUST_ANCHORS_FILE ? { trustAnchorsFile: env.SIGNET_TRUST_ANCHORS_FILE } : {}),
    },
    // --- uploads (issue 15) ---
    uploads: {
      ...(env.SIGNET_UPLOADS_BUCKET || runtime === "local" ? { bucket: env.SIGNET_UPLOADS_BUCKET || "signet-uploads" } : {}),
      ...(env.SIGNET_S3_ENDPOINT ? { s3Endpoint: env.SIGNET_S3_ENDPOINT } : {}),
      postExpirySeconds: readInt(env, "SIGNET_UPLOAD_POST_EXPIRY_SECONDS", 900),
      referenceTtlSeconds: readInt(env, "SIGNET_UPLOAD_TTL_SECONDS", 3600),
    },
    // --- end uploads ---
    conversion: {
      ...(env.SIGNET_SOFFICE ? { soffice: env.SIGNET_SOFFICE } : {}),
      timeoutMs: readInt(env, "SIGNET_CONVERSION_TIMEOUT_MS", 60_000),
      concurrency: readInt(env, "SIGNET_CONVERSION_CONCURRENCY", availableParallelism()),
      queueLength: readInt(env, "SIGNET_CONVERSION_QUEUE", 16),
      mode,
    },
  };
}

/** config is the configuration of this container, read once at cold start. */
export const config: Config = loadConfig();

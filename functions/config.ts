import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DocumentLimits } from "#domain/shared/document.ts";
import { REGISTER_DAILY_WINDOW_SECONDS, VERIFY_FAILURES_PER_SOURCE } from "#domain/keys/rate-limit.ts";
import { parseRegisterPolicy, type RegisterPolicy } from "#domain/keys/register-policy.ts";
import { parseSchedule } from "#domain/webhooks/retry-schedule.ts";

/*
 * Every setting of Signet, in one table (`settings`): its environment name, default, parser and
 * meaning. The settings are grouped by concern (limits, http, keys, mail, ...); each group is read
 * from the environment on first use and kept for the life of the process (a Lambda container), so
 * a function requires only the settings it touches: one that never uses the key table starts
 * without SIGNET_TABLE. docs/configuration.md lists every row (test/unit/config.test.ts checks).
 */

/** Env is an environment to read settings from (process.env in production). */
export type Env = Record<string, string | undefined>;

/** Runtime is "aws" inside Lambda (AWS_LAMBDA_FUNCTION_NAME is set), "local" for the local server and the tests. */
export type Runtime = "aws" | "local";

/** Setting is one row of the table: the variable, what its default is (for the docs), and how its value is read. */
export interface Setting<T> {
  name: string;
  /** The default as docs/configuration.md states it. */
  default: string;
  /** What the setting means, in one line. */
  doc: string;
  /** read parses the variable from env (unset or empty: the default); throws `Configuration error: NAME ...` on a bad value. */
  read: (env: Env, runtime: Runtime) => T;
}

const MB = 1024 * 1024;

/** LOG_LEVELS are the levels SIGNET_LOG_LEVEL may name (Powertools' own). */
const LOG_LEVELS = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "CRITICAL", "SILENT"] as const;

/** LogLevelName is one of LOG_LEVELS. */
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** DEBIAN_HANAZONO is where Debian's fonts-hanazono (scripts/setup.mjs installs it) puts HanaMinA/B. */
const DEBIAN_HANAZONO = "/usr/share/fonts/truetype/hanazono";

function configurationError(message: string): Error {
  return new Error(`Configuration error: ${message}`);
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** integerSetting is a setting holding a whole number that `rule.accept` allows; else "NAME must be <rule.must>". */
function integerSetting(
  name: string,
  fallback: number | ((runtime: Runtime) => number),
  doc: string,
  rule: { accept: (value: number) => boolean; must: string },
  defaultDoc = String(fallback),
): Setting<number> {
  return {
    name,
    default: defaultDoc,
    doc,
    read: (env, runtime) => {
      const text = raw(env, name);
      if (text === undefined) return typeof fallback === "function" ? fallback(runtime) : fallback;
      const value = Number(text);
      if (!Number.isInteger(value) || !rule.accept(value)) throw configurationError(`${name} must be ${rule.must}, got "${text}"`);
      return value;
    },
  };
}

/** positiveInt is a setting holding a positive integer. */
function positiveInt(name: string, fallback: number | ((runtime: Runtime) => number), doc: string, defaultDoc?: string): Setting<number> {
  return integerSetting(name, fallback, doc, { accept: (value) => value > 0, must: "a positive integer" }, defaultDoc);
}

/** count is a setting holding 0 or a positive integer. */
function count(name: string, fallback: number, doc: string): Setting<number> {
  return integerSetting(name, fallback, doc, { accept: (value) => value >= 0, must: "0 or a positive integer" });
}

/** boundedInt is a setting holding an integer from min to max. */
function boundedInt(name: string, fallback: number, bounds: { min: number; max: number; unit: string }, doc: string): Setting<number> {
  const must = `a whole number of ${bounds.unit} from ${bounds.min} to ${bounds.max}`;
  return integerSetting(name, fallback, doc, { accept: (value) => value >= bounds.min && value <= bounds.max, must });
}

/** flag is a boolean setting (true/false, 1/0, yes/no). */
function flag(name: string, fallback: boolean, doc: string): Setting<boolean> {
  return {
    name,
    default: String(fallback),
    doc,
    read: (env) => {
      const text = raw(env, name);
      if (text === undefined) return fallback;
      if (["1", "true", "yes"].includes(text.toLowerCase())) return true;
      if (["0", "false", "no"].includes(text.toLowerCase())) return false;
      throw configurationError(`${name} must be true or false, got "${text}"`);
    },
  };
}

/** optional is a text setting with no default (undefined when unset). */
function optional(name: string, doc: string, defaultDoc = "unset"): Setting<string | undefined> {
  return { name, default: defaultDoc, doc, read: (env) => raw(env, name) };
}

/** text is a text setting with a default. */
function text(name: string, fallback: string | ((runtime: Runtime) => string), doc: string, defaultDoc = String(fallback)): Setting<string> {
  return { name, default: defaultDoc, doc, read: (env, runtime) => raw(env, name) ?? (typeof fallback === "function" ? fallback(runtime) : fallback) };
}

/** requiredOnAws is a setting the stack must set on the functions that use it; locally it has a default. */
function requiredOnAws(name: string, localDefault: string, doc: string): Setting<string> {
  return {
    name,
    default: `\`${localDefault}\` locally; required on AWS`,
    doc,
    read: (env, runtime) => {
      const value = raw(env, name);
      if (value) return value;
      if (runtime === "local") return localDefault;
      throw configurationError(`${name} is required when running on AWS`);
    },
  };
}

function packageVersion(env: Env): string {
  // Bundled Lambdas get the version injected by esbuild (infra); locally package.json is read.
  const injected = raw(env, "SIGNET_VERSION");
  if (injected) return injected;
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    return pkg.version;
  } catch {
    return "0.0.0";
  }
}

/**
 * settings is the table of every setting: one row per environment variable, grouped by concern.
 * A new setting is a row here, a field of its group below, and a row of docs/configuration.md.
 */
export const settings = {
  process: {
    version: {
      name: "SIGNET_VERSION",
      default: "`version` of package.json",
      doc: "the version /v1/health reports (the AWS build injects it)",
      read: packageVersion,
    } as Setting<string>,
    region: {
      name: "AWS_REGION",
      default: "`AWS_DEFAULT_REGION`, else `us-east-1`",
      doc: "region of the DynamoDB, SES and S3 clients",
      read: (env) => raw(env, "AWS_REGION") ?? raw(env, "AWS_DEFAULT_REGION") ?? "us-east-1",
    } as Setting<string>,
    credentials: {
      name: "AWS_ACCESS_KEY_ID",
      default: "unset (the SDK's own chain)",
      doc: "local only, with `AWS_SECRET_ACCESS_KEY`: the credentials the AWS SDK clients sign the stand-ins' requests with (the local server and the tests' local API put the stand-ins' here); on AWS it is not read, the SDK takes the function's role itself",
      read: (env, runtime) => {
        const accessKeyId = raw(env, "AWS_ACCESS_KEY_ID");
        const secretAccessKey = raw(env, "AWS_SECRET_ACCESS_KEY");
        return runtime === "local" && accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined;
      },
    } as Setting<AwsCredentials | undefined>,
    logLevel: {
      name: "SIGNET_LOG_LEVEL",
      default: "INFO",
      doc: "log level",
      read: (env) => {
        const level = (raw(env, "SIGNET_LOG_LEVEL") ?? "INFO").toUpperCase();
        if (!(LOG_LEVELS as readonly string[]).includes(level))
          throw configurationError(`SIGNET_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${level}"`);
        return level as LogLevelName;
      },
    } as Setting<LogLevelName>,
  },
  limits: {
    maxRequestBytes: positiveInt("SIGNET_MAX_REQUEST_BYTES", 36 * MB, "request body limit"),
    maxDocumentBytes: positiveInt("SIGNET_MAX_DOCUMENT_BYTES", 25 * MB, "decoded document limit"),
    maxDocxUncompressedBytes: positiveInt("SIGNET_MAX_DOCX_UNCOMPRESSED_BYTES", 200 * MB, "zip-bomb guard: total unpacked size"),
    maxDocxEntries: positiveInt("SIGNET_MAX_DOCX_ENTRIES", 5000, "zip-bomb guard: entries"),
    maxDocxControls: positiveInt("SIGNET_MAX_DOCX_CONTROLS", 2000, "annotate: content controls per DOCX"),
    maxDocxXmlNodes: positiveInt("SIGNET_MAX_DOCX_XML_NODES", 200_000, "annotate: XML elements in all XML parts of a DOCX"),
    maxDocxControlNodes: positiveInt("SIGNET_MAX_DOCX_CONTROL_NODES", 10_000, "annotate: XML elements inside content controls"),
    maxImageBytes: positiveInt("SIGNET_MAX_IMAGE_BYTES", 10 * MB, "image limit"),
    maxImagePixels: positiveInt(
      "SIGNET_MAX_IMAGE_PIXELS",
      100_000_000,
      "width x height any image inside a document to convert, or any annotate image value, may declare (413 IMAGE_TOO_LARGE above)",
      "100000000",
    ),
    maxTotalImageBytes: positiveInt("SIGNET_MAX_TOTAL_IMAGE_BYTES", 50 * MB, "all distinct images of one annotate call"),
    maxFields: positiveInt("SIGNET_MAX_FIELDS", 500, "fields per annotate call"),
    maxDataIterations: positiveInt("SIGNET_MAX_DATA_ITERATIONS", 10_000, "annotate data: loop iterations in one fill (inner loops count per outer item)"),
    maxDataOutputChars: positiveInt("SIGNET_MAX_DATA_OUTPUT_CHARS", 64 * MB, "annotate data: characters of XML a fill may produce"),
    maxTemplateDepth: positiveInt("SIGNET_MAX_TEMPLATE_DEPTH", 32, "annotate: {{#sections}} nested inside one another in a template"),
    maxTemplateTags: positiveInt("SIGNET_MAX_TEMPLATE_TAGS", 2_000, "annotate: {{tags}} in all parts of a template"),
    maxAuditEvents: positiveInt("SIGNET_MAX_AUDIT_EVENTS", 10_000, "audit events per sign call"),
    maxMetadataBytes: positiveInt("SIGNET_MAX_METADATA_BYTES", 16 * 1024, "sign metadata limit"),
    maxJsonDepth: positiveInt("SIGNET_MAX_JSON_DEPTH", 32, "JSON nesting limit"),
    maxPdfPages: positiveInt("SIGNET_MAX_PDF_PAGES", 10_000, "pages of a PDF to sign or verify"),
    maxConvertPages: positiveInt("SIGNET_MAX_CONVERT_PAGES", 1_000, "convert: pages a spreadsheet or presentation may print to"),
    maxMergeInputs: positiveInt("SIGNET_MERGE_MAX_INPUTS", 200, "merge: documents one call joins"),
    maxMergeTotalBytes: positiveInt(
      "SIGNET_MERGE_MAX_TOTAL_BYTES",
      100 * MB,
      "merge: bytes of all documents of one call together (after decoding and conversion)",
    ),
    maxSplitParts: positiveInt("SIGNET_SPLIT_MAX_PARTS", 1_000, "split: parts one call makes"),
  },
  fetch: {
    allowHttp: flag("SIGNET_ALLOW_HTTP", false, "allow http:// document and image URLs (local use)"),
    timeoutMs: positiveInt("SIGNET_FETCH_TIMEOUT_MS", 10_000, "total time for fetching a document or image URL"),
  },
  http: {
    corsOrigin: text("SIGNET_CORS_ORIGIN", "*", "allowed CORS origin"),
    requestTimeoutMs: positiveInt("SIGNET_REQUEST_TIMEOUT_MS", 60_000, "local server: time for a request's headers and body to arrive"),
    authorizerCacheSeconds: count("SIGNET_AUTHORIZER_CACHE_SECONDS", 0, "local server: reuse an accepted API key's decision this long"),
    publicUrl: {
      name: "SIGNET_PUBLIC_URL",
      default: "unset",
      doc: "base URL for links in e-mails and, locally, the CRL URL in a new signing certificate",
      read: (env) => raw(env, "SIGNET_PUBLIC_URL")?.replace(/\/+$/, ""),
    } as Setting<string | undefined>,
  },
  keys: {
    tableName: requiredOnAws("SIGNET_TABLE", "signet", "DynamoDB table of keys, codes and rate-limit slots"),
    dynamodbEndpoint: optional("SIGNET_DYNAMODB_ENDPOINT", "DynamoDB-compatible endpoint (dynalite locally)", "unset (AWS)"),
    registerIpLimit: positiveInt("SIGNET_REGISTER_IP_LIMIT", 20, "codes one source IP may request per window"),
    registerIpWindowSeconds: positiveInt("SIGNET_REGISTER_IP_WINDOW_SECONDS", 3600, "that window (sliding)"),
    registerDailyLimit: positiveInt("SIGNET_REGISTER_DAILY_LIMIT", 10, "codes one address may receive per sliding 24 hours"),
    verifyIpFailureLimit: positiveInt(
      "SIGNET_VERIFY_IP_FAILURE_LIMIT",
      VERIFY_FAILURES_PER_SOURCE.limit,
      "codes that did not work one source IP (IPv6: /64) may try per sliding 15 minutes, over all addresses",
    ),
    ratePerMinute: positiveInt("SIGNET_KEY_RATE_LIMIT", 60, "requests one API key may make per minute on authorised routes"),
    registerPolicy: {
      name: "SIGNET_REGISTER_ALLOW",
      default: "unset (anyone)",
      doc: "addresses and domains that may register, comma-separated",
      read: (env) => {
        try {
          return parseRegisterPolicy(env.SIGNET_REGISTER_ALLOW);
        } catch (error) {
          throw configurationError(`SIGNET_REGISTER_ALLOW lists addresses and domains separated by commas: ${(error as Error).message}`);
        }
      },
    } as Setting<RegisterPolicy>,
  },
  mail: {
    sender: requiredOnAws("SIGNET_SENDER_EMAIL", "noreply@signet.local", "sender of code and notice e-mails (an SES identity)"),
    sesEndpoint: optional("SIGNET_SES_ENDPOINT", "SES v2 endpoint (aws-ses-v2-local locally)", "unset (AWS)"),
    configurationSet: optional("SIGNET_SES_CONFIGURATION_SET", "SES configuration set every mail is sent through", "unset (the identity's default)"),
  },
  identity: {
    bucket: optional("SIGNET_IDENTITY_BUCKET", "S3 bucket of the signing identity (AWS)"),
    dataDir: text("SIGNET_DATA_DIR", (runtime) => (runtime === "aws" ? "/tmp/signet" : ".signet"), "local data folder", "`.signet` (`/tmp/signet` on AWS)"),
    p12Password: text("SIGNET_IDENTITY_P12_PASSWORD", "", "password of an operator's identity.p12", "empty"),
    p12PasswordParameter: optional("SIGNET_IDENTITY_P12_PASSWORD_PARAMETER", "AWS: SSM SecureString holding that password", "none"),
    kmsKeyId: optional("SIGNET_KMS_KEY_ID", "AWS KMS signing key (id, ARN or alias); `local`: the local KMS stand-in; unset: the key file"),
    kmsRootKeyId: optional("SIGNET_KMS_ROOT_KEY_ID", "AWS KMS key of the root CA that issues the signing certificate and signs the CRL"),
    kmsEndpoint: optional("SIGNET_KMS_ENDPOINT", "KMS-compatible endpoint (the local KMS stand-in)", "unset (AWS)"),
  },
  signing: {
    fontsDir: text(
      "SIGNET_FONTS_DIR",
      () => fileURLToPath(new URL("../assets/fonts/", import.meta.url)),
      "TTF fonts of the audit trail certificate page and of the text in SVG pictures annotate fills",
      "`assets/fonts`",
    ),
    extraFontsDir: {
      name: "SIGNET_EXTRA_FONTS_DIR",
      default: "`/usr/share/fonts/truetype/hanazono` locally when it exists (Debian fonts-hanazono); unset on AWS unless deployed with `-c extraFontsDir`",
      doc: "folder of further TTF fallbacks for the certificate page, every .ttf in name order (HanaMinB covers CJK Extension B)",
      read: (env, runtime) => raw(env, "SIGNET_EXTRA_FONTS_DIR") ?? (runtime === "local" && existsSync(DEBIAN_HANAZONO) ? DEBIAN_HANAZONO : undefined),
    } as Setting<string | undefined>,
    tsaUrl: optional("SIGNET_TSA_URL", "RFC 3161 timestamp authority (PAdES B-T)"),
    trustAnchorsFile: optional("SIGNET_TRUST_ANCHORS_FILE", "PEM file of extra certificates /v1/verify trusts"),
  },
  pictures: {
    renderTimeoutMs: boundedInt(
      "SIGNET_PICTURE_RENDER_TIMEOUT_MS",
      10_000,
      { min: 100, max: 60_000, unit: "milliseconds" },
      "annotate: time one SVG render or WebP decode may take in its thread (422 INVALID_IMAGE after it)",
    ),
  },
  uploads: {
    bucket: {
      name: "SIGNET_UPLOADS_BUCKET",
      default: "`signet-uploads` locally; set by the stack",
      doc: "S3 bucket of uploads",
      read: (env, runtime) => raw(env, "SIGNET_UPLOADS_BUCKET") ?? (runtime === "local" ? "signet-uploads" : undefined),
    } as Setting<string | undefined>,
    s3Endpoint: optional("SIGNET_S3_ENDPOINT", "S3-compatible endpoint (the local S3 stand-in)", "unset (AWS)"),
    postExpirySeconds: positiveInt("SIGNET_UPLOAD_POST_EXPIRY_SECONDS", 900, "how long a presigned upload POST is valid"),
    referenceTtlSeconds: positiveInt("SIGNET_UPLOAD_TTL_SECONDS", 3600, "how long after issue an upload reference may be used"),
  },
  jobs: {
    ttlSeconds: positiveInt("SIGNET_JOB_TTL", 86_400, "seconds a finished job's result is kept (then deleted; the job reads expired)"),
    budgetSeconds: positiveInt("SIGNET_JOB_BUDGET_SECONDS", 900, "time a job's run may take (the worker Lambda's time-out on AWS)"),
    syncBudgetMs: count(
      "SIGNET_SYNC_BUDGET_MS",
      0,
      "a synchronous request's budget: work not done by then answers 504 SYNC_TIMEOUT (retry with Prefer: respond-async); 0: the route's own time-out",
    ),
    workers: positiveInt("SIGNET_JOB_WORKERS", 2, "local server: jobs the in-process pool runs at once"),
    pollMs: positiveInt("SIGNET_JOB_POLL_MS", 50, "local server: how often the pool looks for queued jobs and results to expire"),
    queueUrl: optional("SIGNET_JOB_QUEUE_URL", "SQS queue of jobs (set by the stack); unset: the local pool runs them", "unset (local pool)"),
  },
  webhooks: {
    retrySchedule: {
      name: "SIGNET_WEBHOOK_RETRY_SCHEDULE",
      default: "`5s,5m,30m,2h,5h,10h,10h`",
      doc: "delays before each retry of a job's webhook (units ms, s, m, h, d); one attempt more than delays, then dead-lettered (default: 8 attempts over 27.6 h)",
      read: (env) => {
        try {
          return parseSchedule(raw(env, "SIGNET_WEBHOOK_RETRY_SCHEDULE") ?? "5s,5m,30m,2h,5h,10h,10h");
        } catch (error) {
          throw configurationError(`SIGNET_WEBHOOK_RETRY_SCHEDULE lists delays separated by commas: ${(error as Error).message}`);
        }
      },
    } as Setting<number[]>,
    timeoutMs: positiveInt("SIGNET_WEBHOOK_TIMEOUT_MS", 15_000, "time one webhook POST may take, answer included"),
    sweepMs: positiveInt("SIGNET_WEBHOOK_SWEEP_MS", 1_000, "local server: how often due webhook attempts are looked for (AWS: every minute)"),
  },
  conversion: {
    officeFunction: optional(
      "SIGNET_OFFICE_FUNCTION",
      "the office function LibreOffice runs in (name or ARN; AWS): conversions are sent there, large documents through SIGNET_UPLOADS_BUCKET",
      "unset (LibreOffice runs in this process)",
    ),
    lambdaEndpoint: optional(
      "SIGNET_LAMBDA_ENDPOINT",
      "endpoint of the Lambda API the office function is invoked through (tests: a stand-in)",
      "unset (the region's Lambda endpoint)",
    ),
    soffice: optional("SIGNET_SOFFICE", "LibreOffice soffice binary", "PATH, then `/opt/libreoffice*/program`, `/opt/instdir/program`"),
    mode: {
      name: "SIGNET_CONVERSION_MODE",
      default: "warm",
      doc: "warm (one long-lived LibreOffice per slot) or oneshot",
      read: (env) => {
        const mode = env.SIGNET_CONVERSION_MODE ?? "warm";
        if (mode !== "warm" && mode !== "oneshot") throw configurationError(`SIGNET_CONVERSION_MODE must be "warm" or "oneshot", got "${mode}"`);
        return mode;
      },
    } as Setting<"warm" | "oneshot">,
    timeoutMs: positiveInt("SIGNET_CONVERSION_TIMEOUT_MS", 60_000, "hard limit per conversion"),
    concurrency: positiveInt("SIGNET_CONVERSION_CONCURRENCY", () => availableParallelism(), "conversions running at once", "CPU cores"),
    queueLength: positiveInt("SIGNET_CONVERSION_QUEUE", 16, "conversions waiting for a slot"),
    maxConversionsPerProcess: positiveInt(
      "SIGNET_LIBREOFFICE_MAX_CONVERSIONS",
      200,
      "conversions a warm LibreOffice runs before it is replaced (bounds leaks)",
    ),
    isolation: {
      name: "SIGNET_LIBREOFFICE_ISOLATION",
      default: "auto",
      doc: "auto (LibreOffice in a bubblewrap sandbox that sees only its own job's files, else a network namespace, as the system allows), off, or required (no start and no conversion without the sandbox)",
      read: (env) => {
        const mode = raw(env, "SIGNET_LIBREOFFICE_ISOLATION") ?? "auto";
        // "none" is the former spelling of "off".
        if (mode === "none") return "off";
        if (mode !== "auto" && mode !== "off" && mode !== "required") {
          throw configurationError(`SIGNET_LIBREOFFICE_ISOLATION must be "auto", "off" or "required", got "${mode}"`);
        }
        return mode;
      },
    } as Setting<"auto" | "off" | "required">,
    recycle: flag(
      "SIGNET_LIBREOFFICE_RECYCLE",
      false,
      "end LibreOffice (its process group and every process it left) after every conversion; the stack sets it on the office function",
    ),
    tempDir: optional("SIGNET_LIBREOFFICE_TEMP_DIR", "folder the converter's private work folder is made in", "the OS temp folder (`TMPDIR`)"),
    memoryLimitMb: count("SIGNET_LIBREOFFICE_MEMORY_MB", 4096, "address-space limit of each LibreOffice process in MB (prlimit --as); 0: none"),
    profileTemplate: {
      name: "SIGNET_LIBREOFFICE_PROFILE",
      default: "`<SIGNET_DATA_DIR>/libreoffice-profile` locally; set by the stack to the image's",
      doc: "complete LibreOffice profile copied for each instance (made there after the first conversion when missing or stale)",
      read: (env, runtime) =>
        raw(env, "SIGNET_LIBREOFFICE_PROFILE") ?? (runtime === "local" ? join(raw(env, "SIGNET_DATA_DIR") ?? ".signet", "libreoffice-profile") : undefined),
    } as Setting<string | undefined>,
  },
} as const;

/** allSettings is every row of the table, flat. */
export const allSettings: Setting<unknown>[] = Object.values(settings).flatMap((group) => Object.values(group) as Setting<unknown>[]);

/** Values are the values of a group of settings: a setting that may be unset (undefined) is an optional field. */
type Values<G> = { [K in keyof G as G[K] extends Setting<infer T> ? (undefined extends T ? never : K) : never]: G[K] extends Setting<infer T> ? T : never } & {
  [K in keyof G as G[K] extends Setting<infer T> ? (undefined extends T ? K : never) : never]?: G[K] extends Setting<infer T> ? Exclude<T, undefined> : never;
};

function readGroup<G extends Record<string, Setting<unknown>>>(group: G, env: Env, runtime: Runtime): Values<G> {
  // An unset optional setting leaves its field out (not `field: undefined`), as before the split.
  const entries = Object.entries(group).map(([key, setting]) => [key, setting.read(env, runtime)] as const);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as Values<G>;
}

/** Limits are the size and count caps listed in docs/configuration.md; every one is configurable. */
export type Limits = Values<typeof settings.limits>;

/** AwsCredentials are a static access key pair (the local stand-ins'). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Config is every setting of Signet, grouped by concern. */
export interface Config {
  version: string;
  runtime: Runtime;
  region: string;
  /** Locally, the stand-ins' credentials the SDK clients sign with; unset on AWS (the SDK's own chain). */
  credentials?: AwsCredentials;
  /** The log level from the container's creation on (SIGNET_LOG_LEVEL). */
  logLevel: LogLevelName;
  limits: Limits;
  /** The limits in the shape resolveDocument and the zip guard take (derived from limits). */
  documentLimits: DocumentLimits;
  fetch: { allowHttp: boolean; timeoutMs: number; maxRedirects: number };
  cors: { origin: string };
  http: {
    /** Time for a request's headers and body to arrive (local server), in ms; the handler's own work is not counted. */
    requestTimeoutMs: number;
    /** Local server: seconds an allowing API-key decision is reused (API Gateway caches it 60 s); 0 asks every time. */
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
    /** Register calls (codes sent) allowed per address in a sliding 24 hours (besides the 3 per 15 minutes of docs/api.md, "API keys"). */
    registerPerAddressDaily: { limit: number; windowSeconds: number };
    /** Codes that did not work, allowed per source IP (IPv6 /64) in a sliding 15 minutes. */
    verifyFailuresPerIp: { limit: number; windowSeconds: number };
    /** Requests one API key may make per minute on authorised routes. */
    ratePerMinute: number;
    /** Who may register (open when SIGNET_REGISTER_ALLOW is unset). */
    registerPolicy: RegisterPolicy;
  };
  // These groups are exactly their rows of the table: a new row there is a new field here.
  mail: Values<typeof settings.mail>;
  identity: Values<typeof settings.identity>;
  signing: Values<typeof settings.signing>;
  pictures: Values<typeof settings.pictures>;
  uploads: Values<typeof settings.uploads>;
  webhooks: Values<typeof settings.webhooks>;
  conversion: Values<typeof settings.conversion>;
  jobs: Values<typeof settings.jobs>;
}

/** runtimeOf tells Lambda from local. */
export function runtimeOf(env: Env): Runtime {
  return env.AWS_LAMBDA_FUNCTION_NAME ? "aws" : "local";
}

/** readers build each group of Config from an environment; each is independent of the others. */
const readers: { [K in keyof Config]-?: (env: Env, runtime: Runtime) => Config[K] } = {
  version: (env, runtime) => settings.process.version.read(env, runtime),
  runtime: (_env, runtime) => runtime,
  region: (env, runtime) => settings.process.region.read(env, runtime),
  credentials: (env, runtime) => settings.process.credentials.read(env, runtime),
  logLevel: (env, runtime) => settings.process.logLevel.read(env, runtime),
  limits: (env, runtime) => readGroup(settings.limits, env, runtime),
  documentLimits: (env, runtime) => {
    const limits = readGroup(settings.limits, env, runtime);
    return {
      maxDocumentBytes: limits.maxDocumentBytes,
      maxEntries: limits.maxDocxEntries,
      maxUncompressedBytes: limits.maxDocxUncompressedBytes,
      maxPdfPages: limits.maxPdfPages,
    };
  },
  fetch: (env, runtime) => ({ ...readGroup(settings.fetch, env, runtime), maxRedirects: 3 }),
  cors: (env, runtime) => ({ origin: settings.http.corsOrigin.read(env, runtime) }),
  http: (env, runtime) => ({
    requestTimeoutMs: settings.http.requestTimeoutMs.read(env, runtime),
    authorizerCacheSeconds: settings.http.authorizerCacheSeconds.read(env, runtime),
  }),
  publicUrl: (env, runtime) => settings.http.publicUrl.read(env, runtime),
  keys: (env, runtime) => {
    const { registerIpLimit, registerIpWindowSeconds, registerDailyLimit, verifyIpFailureLimit, ...keys } = readGroup(settings.keys, env, runtime);
    return {
      ...keys,
      verifyFailuresPerIp: { limit: verifyIpFailureLimit, windowSeconds: VERIFY_FAILURES_PER_SOURCE.windowSeconds },
      registerPerIp: { limit: registerIpLimit, windowSeconds: registerIpWindowSeconds },
      registerPerAddressDaily: { limit: registerDailyLimit, windowSeconds: REGISTER_DAILY_WINDOW_SECONDS },
    };
  },
  mail: (env, runtime) => readGroup(settings.mail, env, runtime),
  identity: (env, runtime) => readGroup(settings.identity, env, runtime),
  signing: (env, runtime) => readGroup(settings.signing, env, runtime),
  pictures: (env, runtime) => readGroup(settings.pictures, env, runtime),
  uploads: (env, runtime) => readGroup(settings.uploads, env, runtime),
  webhooks: (env, runtime) => readGroup(settings.webhooks, env, runtime),
  conversion: (env, runtime) => readGroup(settings.conversion, env, runtime),
  jobs: (env, runtime) => readGroup(settings.jobs, env, runtime),
};

/** loadConfig reads every setting from an environment at once; it throws on a bad or missing value. */
export function loadConfig(env: Env): Config {
  const runtime = runtimeOf(env);
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const [key, read] of Object.entries(readers) as Array<[keyof Config, (env: Env, runtime: Runtime) => unknown]>) {
    const value = read(env, runtime);
    if (value !== undefined) config[key] = value;
  }
  return config as Config;
}

/**
 * lazyConfig is a Config whose groups are each read from env on first access and kept: a function
 * that never reads `keys` never needs SIGNET_TABLE. A bad value still fails loudly, on first use.
 */
export function lazyConfig(env: Env): Config {
  const lazy = {} as Config;
  for (const [key, read] of Object.entries(readers) as Array<[keyof Config, (env: Env, runtime: Runtime) => unknown]>) {
    Object.defineProperty(lazy, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = read(env, runtimeOf(env));
        Object.defineProperty(lazy, key, { value, enumerable: true, configurable: false, writable: false });
        return value;
      },
    });
  }
  return lazy;
}

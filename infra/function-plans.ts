import { WEBP_GLUE, WEBP_WASM } from "#adapters/jsquash-webp-decoder.ts";
import { RESVG_GLUE, RESVG_WASM } from "#adapters/resvg-svg-renderer.ts";
import type { RouteName } from "#http/routes.ts";
import type { RuntimeFile } from "./bundling.ts";
import type { identityObjects, keyTableActions } from "./bind.ts";
import {
  INTEGRATION_TIMEOUT_SECONDS,
  JOB_WORKER_TIMEOUT_SECONDS,
  KEY_FUNCTION_TIMEOUT_SECONDS,
  OFFICE_FUNCTION_TIMEOUT_SECONDS,
  OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS,
  STREAMING_TIMEOUT_SECONDS,
} from "#functions/timeouts.ts";

/**
 * FunctionName is every function of the stack: one per route of functions/http/routes.ts
 * (RouteName), the API-key authorizer, the fallback, the two office functions and (with the keys in
 * KMS) the scheduled CRL issuer. The table below must
 * name each: a new route without its plan does not compile.
 */
export type FunctionName = RouteName | "authorizer" | "fallback" | "office" | "office-jobs" | "crl-issuer" | "jobs-worker" | "webhook-sweeper";

/**
 * FunctionPlan is everything the stack decides per function that does not depend on a deploy
 * option: size, how it is packaged, what it reads from disk, and what it may touch. Option-driven
 * bindings (KMS keys, the P12 password parameter, the TSA, the register allow-list) stay in
 * infra/signet-stack.ts beside the option.
 */
export interface FunctionPlan {
  memoryMb: number;
  timeoutSeconds: number;
  /** "zip": a NodejsFunction on nodejs22.x; "office-image": the LibreOffice container image (the office functions only). */
  package: "zip" | "office-image";
  /** Files the function reads at run time, copied beside its bundle (the task root). */
  runtimeFiles?: readonly RuntimeFile[];
  /** Its calls on the key table (infra/bind.ts keyTableActions); the per-key request count of authorised routes is added by the stack. */
  keyTable?: keyof typeof keyTableActions;
  /** Which side of the signing-identity bucket it reads (infra/bind.ts identityObjects). */
  identity?: keyof typeof identityObjects;
  /** Uploads: "grant" presigns the POST, "consume" reads and deletes uploads, "produce" also writes its output as uploads (infra/uploads.ts). */
  uploads?: "grant" | "consume" | "produce";
  /** Sends mail from the sender address. */
  mail?: true;
  /** Converts through this office function: may invoke it (and no other) and stage documents under office/ of the uploads bucket. */
  office?: OfficeFunctionName;
}

const small = { memoryMb: 256, timeoutSeconds: 10, package: "zip" } as const;
// The key functions wait on DynamoDB and SES: their time-outs stay above the SDK budgets (functions/timeouts.ts).
const keyFunction = { memoryMb: 256, timeoutSeconds: KEY_FUNCTION_TIMEOUT_SECONDS["auth-register"], package: "zip" } as const;
// Sign, annotate and convert parse and write documents up to 25 MB (a 20 MB signing peaks near
// 600 MB locally) and stream their answers for up to 120 s; LibreOffice runs in the office function.
const streamed = { memoryMb: 1536, timeoutSeconds: STREAMING_TIMEOUT_SECONDS, package: "zip", uploads: "consume", office: "office" } as const;

/** unoDriver is the warm LibreOffice's UNO driver, looked up beside the bundle (functions/adapters/libreoffice/uno-driver.ts). */
const unoDriver: RuntimeFile = { from: "functions/adapters/libreoffice/uno-driver.py", to: "uno-driver.py" };

/**
 * drawingFiles are what drawing text and pictures into a PDF loads from beside the bundle: the
 * bundled fonts (SIGNET_FONTS_DIR), HarfBuzz's WebAssembly, the SVG renderer and the WebP decoder
 * (sign's visible signatures and audit page, annotate's pictures and form appearances, stamp, jobs).
 */
const drawingFiles = [
  { from: "assets", to: "assets" },
  { from: "node_modules/harfbuzzjs/dist/harfbuzz.wasm", to: "harfbuzz.wasm" },
  { from: `node_modules/${RESVG_WASM.module}`, to: RESVG_WASM.file },
  { from: `node_modules/${RESVG_GLUE.module}`, to: RESVG_GLUE.file },
  { from: `node_modules/${WEBP_WASM.module}`, to: WEBP_WASM.file },
  { from: `node_modules/${WEBP_GLUE.module}`, to: WEBP_GLUE.file },
];

/** functionPlans is the one table of per-function deployment facts. */
export const functionPlans = {
  info: small,
  health: small,
  openapi: { ...small, memoryMb: 512 },
  // The reference UI of /docs (functions/http/docs-page.ts looks beside itself).
  docs: { ...small, runtimeFiles: [{ from: "node_modules/@scalar/api-reference/dist/browser/standalone.js", to: "api-reference.standalone.js" }] },
  "auth-register": { ...keyFunction, keyTable: "readWrite", mail: true },
  "auth-verify": { ...keyFunction, timeoutSeconds: KEY_FUNCTION_TIMEOUT_SECONDS["auth-verify"], keyTable: "readWrite", mail: true },
  // Listing and revoking: a few sequential table calls (read, then a transaction).
  "keys-list": { ...keyFunction, keyTable: "list" },
  "keys-revoke": { ...keyFunction, keyTable: "revoke" },
  "keys-revoke-link": { ...keyFunction, keyTable: "revoke" },
  // The webhook signing secret beside the key (WHSEC# items: infra/bind.ts webhookSecrets, bound by the stack).
  "webhooks-secret": keyFunction,
  "webhooks-secret-rotate": keyFunction,
  authorizer: { memoryMb: 256, timeoutSeconds: KEY_FUNCTION_TIMEOUT_SECONDS.authorizer, package: "zip", keyTable: "authorize" },
  fallback: small,
  // The audit page fonts (SIGNET_FONTS_DIR) and HarfBuzz's WebAssembly, which harfbuzzjs loads from beside the bundle;
  // the SVG renderer and WebP decoder for a visible signature's picture (signatureField.image), as annotate.
  sign: {
    ...streamed,
    identity: "signing",
    runtimeFiles: drawingFiles,
  },
  timestamp: { ...small, uploads: "consume" },
  // protect and unprotect rewrite whole PDFs up to 25 MB (libpdf, in memory) and stream the answer: metadata's size, no office and no identity.
  protect: { memoryMb: 1536, timeoutSeconds: STREAMING_TIMEOUT_SECONDS, package: "zip", uploads: "consume" },
  unprotect: { memoryMb: 1536, timeoutSeconds: STREAMING_TIMEOUT_SECONDS, package: "zip", uploads: "consume" },
  // annotate's SVG renderer and WebP decoder (functions/wiring/pictures.ts looks beside the bundle), the font SVG text is drawn
  // with, and HarfBuzz's WebAssembly for the appearance streams of a filled PDF form.
  annotate: {
    ...streamed,
    runtimeFiles: drawingFiles,
  },
  // The stamp's fonts (assets, HarfBuzz) and pictures (SVG renderer, WebP decoder), as sign and annotate.
  stamp: {
    memoryMb: 1536,
    timeoutSeconds: STREAMING_TIMEOUT_SECONDS,
    package: "zip",
    uploads: "consume",
    runtimeFiles: drawingFiles,
  },
  // Reads or rewrites a PDF up to 25 MB (the whole file when it is unsigned); no fonts, no pictures.
  metadata: { memoryMb: 1536, timeoutSeconds: STREAMING_TIMEOUT_SECONDS, package: "zip", uploads: "consume" },
  "annotate-fields": { memoryMb: 1024, timeoutSeconds: INTEGRATION_TIMEOUT_SECONDS, package: "zip", uploads: "consume" },
  convert: streamed,
  // Only sign touches the key; verify (which parses untrusted PDFs) and verify-key read the public chain.
  verify: { memoryMb: 1024, timeoutSeconds: INTEGRATION_TIMEOUT_SECONDS, package: "zip", identity: "certificate", uploads: "consume" },
  "verify-key": { memoryMb: 512, timeoutSeconds: 15, package: "zip", identity: "certificate" },
  // Serves the kept CRL (identity-root.crl beside the published chain); it signs nothing on AWS (docs/aws.md).
  "verify-crl": { ...small, identity: "certificate" },
  // Not behind a route: run daily by its schedule (infra/crl-issuer.ts), it signs the CRL with the root key when it is due.
  "crl-issuer": { ...small, timeoutSeconds: 30, identity: "crlIssuer" },
  // Not behind a route: run every minute (infra/webhook-sweeper.ts), it sends the webhook retries that are due (40 s of batches, each POST at most 15 s).
  "webhook-sweeper": { ...small, timeoutSeconds: 60 },
  uploads: { ...small, uploads: "grant" },
  // The job resource: one record, and a presigned GET of a large result (infra/jobs.ts binds the job store).
  job: small,
  "job-redeliver": small,
  // Not behind a route: the SQS worker runs sign, annotate, convert, verify and timestamp jobs through their handlers (infra/jobs.ts), 15 minutes each.
  "jobs-worker": {
    ...streamed,
    timeoutSeconds: JOB_WORKER_TIMEOUT_SECONDS,
    // A job's conversion gets the job's budget: the jobs' office function (874 s), not the routes' (83 s).
    office: "office-jobs",
    identity: "signing",
    runtimeFiles: drawingFiles,
  },
  // The PDF tools (issue 40): documents up to 25 MB each (a merge up to 100 MB together), streamed answers; merge and the
  // others convert a DOCX input through the office function as sign does.
  merge: streamed,
  // split with output "uploads" keeps its parts as uploads of the caller.
  split: { ...streamed, uploads: "produce" },
  pages: streamed,
  // LibreOffice wants memory (and the CPU share that comes with it): shelf recommends >= 3008 MB.
  office: { memoryMb: 3008, timeoutSeconds: OFFICE_FUNCTION_TIMEOUT_SECONDS, package: "office-image", runtimeFiles: [unoDriver] },
  // The same image, network and rights, for the job worker alone: its time-out is the job's budget less margins (functions/timeouts.ts).
  "office-jobs": { memoryMb: 3008, timeoutSeconds: OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS, package: "office-image", runtimeFiles: [unoDriver] },
} as const satisfies Record<FunctionName, FunctionPlan>;

/** OfficeFunctionName names the office functions: the routes' (planned inside the streaming 120 s) and the jobs' (inside the worker's 15 minutes). */
export type OfficeFunctionName = "office" | "office-jobs";

/** officeCallers are the functions that convert through an office function (sign's DOCX input, annotate with to=pdf, convert, the job worker). */
export const officeCallers = (Object.keys(functionPlans) as FunctionName[]).filter((name) => (functionPlans[name] as FunctionPlan).office !== undefined);

/** planOf is a function's plan. */
export function planOf(name: FunctionName): FunctionPlan {
  return functionPlans[name];
}

/**
 * Every time budget of Signet in one place: the AWS SDK limits of the key-store and mail clients,
 * what they add up to per key function, and the Lambda and API Gateway time-outs the stack
 * (infra/signet-stack.ts) sets from them, and the time a streamed answer takes to write. Pure
 * constants and arithmetic: the stack imports this module.
 */

/** INTEGRATION_TIMEOUT_SECONDS is API Gateway's limit for a buffered (non-streaming) integration (the REST default). */
export const INTEGRATION_TIMEOUT_SECONDS = 29;

/**
 * STREAMING_TIMEOUT_SECONDS is the time-out of the streaming routes (contract `streaming`:
 * sign, annotate, convert) and of their functions. The gateway allows up to 15 minutes but cuts a
 * stream idle for 5 minutes (Regional), and these functions write their answer only once it is
 * complete. 120 s covers a LibreOffice cold start plus a 25 MB document with room to spare.
 */
export const STREAMING_TIMEOUT_SECONDS = 120;

/**
 * JOB_WORKER_TIMEOUT_SECONDS is the job worker's time-out (functions/jobs-worker.ts): Lambda's
 * most, 15 minutes, the budget of a job (SIGNET_JOB_BUDGET_SECONDS' default).
 */
export const JOB_WORKER_TIMEOUT_SECONDS = 900;

const MiB = 1024 * 1024;

/**
 * STREAM_UNCAPPED_BYTES: Lambda streams the first 6 MB of an answer at full speed (API Gateway the
 * first 10 MB); the rest is capped. STREAM_CAPPED_BYTES_PER_SECOND: the cap, 2 MB/s (Lambda's
 * bandwidth limit for streamed answers and the gateway's above 10 MB alike).
 */
const STREAM_UNCAPPED_BYTES = 6 * MiB;
const STREAM_CAPPED_BYTES_PER_SECOND = 2 * MiB;

/** STREAM_MARGIN_MS is added to every write estimate: the metadata, the first bytes' round trip, the runtime ending the invocation. */
export const STREAM_MARGIN_MS = 2_000;

/** streamWriteMs is the longest writing a streamed answer of this many bytes takes on AWS. */
export function streamWriteMs(bytes: number): number {
  return STREAM_MARGIN_MS + Math.ceil((Math.max(0, bytes - STREAM_UNCAPPED_BYTES) / STREAM_CAPPED_BYTES_PER_SECOND) * 1000);
}

/**
 * LARGEST_PLANNED_ANSWER_BYTES is the answer the time budget is planned for: a 25 MB document
 * (SIGNET_MAX_DOCUMENT_BYTES) as base64 inside JSON (sign, annotate), plus 64 KB of JSON around
 * it. 35 MB: 15.7 s to write. A larger answer (convert can make a PDF larger than its input) is
 * checked against the time actually left before its first byte (functions/http/streaming.ts).
 */
export const LARGEST_PLANNED_ANSWER_BYTES = Math.ceil((25 * MiB) / 3) * 4 + 64 * 1024;

/** AFTER_CONVERSION_MS is the work after LibreOffice returns (signing, the audit page, the JSON) allowed for. */
export const AFTER_CONVERSION_MS = 5_000;

/**
 * OFFICE_INIT_MS is what a cold office function (functions/office.ts, where LibreOffice runs on AWS)
 * may add before it takes a job: Lambda's init phase, at most 10 s (its LibreOffice start waits
 * at most 8 s of it). The caller waits through it; the office function's time-out does not count it.
 */
export const OFFICE_INIT_MS = 10_000;

/**
 * OFFICE_TRANSFER_MS is one move of the largest document through the uploads bucket in the region
 * (a PUT or a GET of 25 MB; S3 in-region moves tens of MB a second, so this is generous). A large
 * document makes four: the caller's PUT and the office function's GET of the input, the office
 * function's PUT and the caller's GET of the output.
 */
export const OFFICE_TRANSFER_MS = 3_000;

/** OFFICE_ANSWER_MARGIN_MS is the office function's own work around LibreOffice: the job's parsing, the input checks, the answer. */
const OFFICE_ANSWER_MARGIN_MS = 1_000;

/**
 * OFFICE_FUNCTION_TIMEOUT_SECONDS is the office function's Lambda time-out: inside the caller's
 * 120 s, after a cold start of the office function, the caller's two transfers, the work after the
 * conversion and the writing of the largest planned answer (120 - 10 - 6 - 5 - 15.7 s, rounded
 * down: 83 s). So a conversion that overruns ends in the office function and comes back to the
 * caller as CONVERSION_TIMEOUT while the caller still has time to answer 504.
 */
export const OFFICE_FUNCTION_TIMEOUT_SECONDS = Math.floor(
  (STREAMING_TIMEOUT_SECONDS * 1000 - OFFICE_INIT_MS - 2 * OFFICE_TRANSFER_MS - AFTER_CONVERSION_MS - streamWriteMs(LARGEST_PLANNED_ANSWER_BYTES)) / 1000,
);

/**
 * officeConversionLimitMs is SIGNET_CONVERSION_TIMEOUT_MS of an office function with this Lambda
 * time-out: LibreOffice stops early enough that the function's own two transfers and its answer
 * still fit, so its handler answers CONVERSION_TIMEOUT itself rather than being killed by Lambda.
 */
export function officeConversionLimitMs(functionTimeoutSeconds: number): number {
  return functionTimeoutSeconds * 1000 - 2 * OFFICE_TRANSFER_MS - OFFICE_ANSWER_MARGIN_MS;
}

/**
 * OFFICE_INVOKE_OVERHEAD_MS is what one invoke of an office function adds to the conversion it
 * asks for: the function's cold start, its two transfers and its answer (10 + 6 + 1 s: 17 s). A
 * caller waits for a conversion of N ms at most N + 17 s (functions/adapters/office-worker-converter.ts).
 */
export const OFFICE_INVOKE_OVERHEAD_MS = OFFICE_INIT_MS + 2 * OFFICE_TRANSFER_MS + OFFICE_ANSWER_MARGIN_MS;

/**
 * LAMBDA_CONVERSION_TIMEOUT_MS is SIGNET_CONVERSION_TIMEOUT_MS of the office function (83 - 3 - 3
 * - 1 s: 76 s), and the limit a caller asks for when its request names none (every synchronous
 * request; a job's DOCX to sign). Before the office function it was 99 s.
 */
export const LAMBDA_CONVERSION_TIMEOUT_MS = officeConversionLimitMs(OFFICE_FUNCTION_TIMEOUT_SECONDS);

/**
 * OFFICE_INVOKE_TIMEOUT_MS is how long a caller waits for one invoke of the office function: its
 * cold start plus its time-out (93 s). A caller that gave up then still has the time for its
 * transfers and its 504: 3 + 93 + 3 + 5 + 15.7 s <= 120 s (test/unit/stream-budget.test.ts).
 */
export const OFFICE_INVOKE_TIMEOUT_MS = LAMBDA_CONVERSION_TIMEOUT_MS + OFFICE_INVOKE_OVERHEAD_MS;

/** JOB_AFTER_WORK_MS is what a job's run keeps back from its budget for the work after a long step (signing, the answer, storing it). */
export const JOB_AFTER_WORK_MS = 10_000;

/**
 * OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS is the Lambda time-out of the jobs' office function
 * (office-jobs: the same image, network and rights as the office function, invoked by the job
 * worker alone), so a job's conversion gets the job's 15 minutes rather than the 83 s planned inside
 * the streaming routes. A job's conversion step has at most 890 s (the worker's 900 s less
 * JOB_AFTER_WORK_MS); less the worker's two transfers and the office function's cold start:
 * 900 - 10 - 6 - 10 = 874 s. Its conversion limit is then 867 s (officeConversionLimitMs), exactly
 * the most a job's conversion asks for (890 - 6 - 17 s).
 */
export const OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS = Math.floor(
  (JOB_WORKER_TIMEOUT_SECONDS * 1000 - JOB_AFTER_WORK_MS - 2 * OFFICE_TRANSFER_MS - OFFICE_INIT_MS) / 1000,
);

/** AUTHORIZER_CACHE_SECONDS is how long API Gateway reuses an authorizer answer: the bound on revocation taking effect. */
export const AUTHORIZER_CACHE_SECONDS = 60;

/**
 * DYNAMODB_CLIENT_LIMITS bound each DynamoDB call: 2 attempts (1 retry), each at most 1 s to
 * connect and 2 s to answer. Single-item calls normally answer in milliseconds.
 */
export const DYNAMODB_CLIENT_LIMITS = { maxAttempts: 2, connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000 } as const;

/**
 * DYNAMODB_CALL_BUDGET_MS is the most one key-store call can take, retries and back-off included
 * (enforced by a deadline): 2 x (1 s + 2 s) = 6 s. A caller that must still clean up after a
 * failure elsewhere (register) needs one of these left in its time-out.
 */
export const DYNAMODB_CALL_BUDGET_MS =
  DYNAMODB_CLIENT_LIMITS.maxAttempts * (DYNAMODB_CLIENT_LIMITS.connectionTimeoutMs + DYNAMODB_CLIENT_LIMITS.requestTimeoutMs);

/** TOUCH_BUDGET_MS bounds the best-effort lastUsedAt update, so it adds little to the authorizer's time. */
export const TOUCH_BUDGET_MS = 1_000;

/**
 * SES_CLIENT_LIMITS bound each SendEmail: 2 attempts (1 retry), each at most 1 s to connect and
 * 3 s to answer (SES normally answers within a few hundred milliseconds).
 */
export const SES_CLIENT_LIMITS = { maxAttempts: 2, connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000 } as const;

/**
 * SES_SEND_BUDGET_MS is the most one send can take, retries and back-off included (enforced by a
 * deadline): 2 x (1 s + 3 s) = 8 s.
 */
export const SES_SEND_BUDGET_MS = SES_CLIENT_LIMITS.maxAttempts * (SES_CLIENT_LIMITS.connectionTimeoutMs + SES_CLIENT_LIMITS.requestTimeoutMs);

/** QUICK_CALLS_MS allows for the store calls that answer normally (milliseconds each) on a path. */
const QUICK_CALLS_MS = 1_000;

/**
 * KEY_FUNCTION_WORST_CASE_MS is the longest each function can run when one dependency fails as
 * slowly as its client allows (every SDK call is cut at its budget):
 * - auth-register: SES gives up (8 s), then the code and the rate slots are put back, which must
 *   finish even if DynamoDB is slow too (6 s), plus the quick calls: 15 s.
 * - auth-verify: the key is stored, then the notice e-mail gives up (8 s) before the key is
 *   shown, plus the quick calls: 9 s. (DynamoDB failing ends it sooner: 6 s + quick calls.)
 * - authorizer: the key lookup gives up (6 s), or succeeds and the best-effort lastUsedAt update
 *   is cut at 1 s: 7 s.
 */
export const KEY_FUNCTION_WORST_CASE_MS = {
  "auth-register": SES_SEND_BUDGET_MS + DYNAMODB_CALL_BUDGET_MS + QUICK_CALLS_MS,
  "auth-verify": Math.max(SES_SEND_BUDGET_MS, DYNAMODB_CALL_BUDGET_MS) + QUICK_CALLS_MS,
  authorizer: DYNAMODB_CALL_BUDGET_MS + TOUCH_BUDGET_MS,
} as const;

/**
 * KEY_FUNCTION_TIMEOUT_SECONDS are the Lambda time-outs of the key functions. Each must stay above
 * its KEY_FUNCTION_WORST_CASE_MS, so a slow DynamoDB or SES ends in Signet's own 503
 * SERVICE_UNAVAILABLE / 502 EMAIL_FAILED rather than a Lambda time-out (a bare 502 from the
 * gateway), and below API Gateway's 29 s. Register and verify-code (several table calls, one SES
 * call): 20 s; the authorizer (one lookup, one stamp; its failure becomes the gateway's 503): 10 s.
 * Change the SDK limits above and these together (test/unit/keys-rules.test.ts checks).
 */
export const KEY_FUNCTION_TIMEOUT_SECONDS = { "auth-register": 20, "auth-verify": 20, authorizer: 10 } as const satisfies Record<
  keyof typeof KEY_FUNCTION_WORST_CASE_MS,
  number
>;

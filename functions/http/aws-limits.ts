import { formatBytes } from "#domain/shared/sizes.ts";

/**
 * The size limits that hold on AWS, in one place for messages, the gateway's own
 * answers and the OpenAPI descriptions. Locally the server accepts SIGNET_MAX_REQUEST_BYTES (36 MB)
 * bodies; on AWS the gateway and Lambda cap a request long before that.
 */
const MB = 1024 * 1024;

/** Lambda's synchronous invoke payload: the whole event, body base64-encoded (binaryMediaTypes *&#47;*). */
export const LAMBDA_INVOKE_BYTES = 6 * MB;
/** API Gateway REST's request limit; above it the gateway answers 413 itself. */
export const GATEWAY_REQUEST_BYTES = 10 * MB;
/** About the largest document sent inline as base64 JSON: base64 twice (in JSON, then the event) within 6 MB. */
export const INLINE_DOCUMENT_BYTES = Math.floor(((LAMBDA_INVOKE_BYTES - 64 * 1024) * 9) / 16);
/** About the largest file sent as multipart/form-data: base64 once within 6 MB. */
export const MULTIPART_FILE_BYTES = Math.floor(((LAMBDA_INVOKE_BYTES - 64 * 1024) * 3) / 4);
/** The document limit of the default configuration (SIGNET_MAX_DOCUMENT_BYTES), for texts fixed at build time. */
export const DEFAULT_DOCUMENT_BYTES = 25 * MB;

/** awsLimitsText says, for callers, what fits inline on AWS and what to do with larger documents. */
export function awsLimitsText(maxDocumentBytes = DEFAULT_DOCUMENT_BYTES): string {
  return (
    `On AWS a request reaches the function only up to ${formatBytes(LAMBDA_INVOKE_BYTES)} after the gateway's base64 encoding: about ` +
    `${formatBytes(INLINE_DOCUMENT_BYTES)} of document as base64 JSON, about ${formatBytes(MULTIPART_FILE_BYTES)} as a multipart file. ` +
    `Larger documents, up to the ${formatBytes(maxDocumentBytes)} document limit, go through POST /v1/uploads (then document.upload, or ` +
    `convert ?upload=) or document.url. Answers of sign, annotate and convert are streamed, so they are not held to Lambda's 6 MB.`
  );
}

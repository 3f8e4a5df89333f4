import "#wiring/start-at-init.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { readPresigned, writePresigned } from "#adapters/presigned-url.ts";
import { INLINE_DOCUMENT_BYTES, type OfficeAnswer } from "#domain/documents/office-job.ts";
import { runOfficeJob } from "#domain/documents/office-worker.ts";
import { isSignetError } from "#domain/shared/errors.ts";
import { OFFICE_TRANSFER_MS } from "#functions/timeouts.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { converter, intakeLimits } from "#wiring/conversion.ts";

// The office function: the one place LibreOffice runs on AWS, invoked by sign, annotate
// and convert (functions/adapters/office-worker-converter.ts), in a VPC without a route to the
// internet and with a role that may only write logs. Its converter is the local one (no
// SIGNET_OFFICE_FUNCTION here), and every document goes through the same intake() again; LibreOffice starts in the
// init phase (start-at-init.ts), and init waits for it at most 8 s (Lambda allows 10 s).

/** makeOfficeHandler builds the office job handler on a container (functions/domain/documents/office-job.ts): never throws; failures are answers with a SignetError code. */
export function makeOfficeHandler(container: Container) {
  const { config } = container;
  // The office function checks each document again with its own limits: a filled template (annotate)
  // may exceed the upload limit by the images it was given.
  const limits = { ...intakeLimits(config), maxDocumentBytes: config.limits.maxDocumentBytes + config.limits.maxTotalImageBytes };
  return async (event: unknown): Promise<OfficeAnswer> =>
    runOfficeJob(event, {
      converter: converter(container),
      conversionLimitMs: config.conversion.timeoutMs,
      limits,
      inlineLimitBytes: INLINE_DOCUMENT_BYTES,
      readInput: (url, maxBytes) => readPresigned(url, maxBytes, OFFICE_TRANSFER_MS),
      writeOutput: (url, bytes) => writePresigned(url, bytes, OFFICE_TRANSFER_MS),
      onError: (error) => {
        // Below 500 the caller's answer says it all; above, the cause stays in this log only.
        if (isSignetError(error) && !["INTERNAL_ERROR", "CONVERSION_FAILED", "SERVICE_UNAVAILABLE"].includes(error.code)) return;
        logger.error("office job failed", { error: error as Error });
      },
    });
}

const container = processContainer();
if (container.config.runtime === "aws") await converter(container).startEarly(8_000);

/** handler answers one office job with this process's container. */
export const handler = makeOfficeHandler(container);

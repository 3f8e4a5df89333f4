import type { APIGatewayProxyEvent, Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import { invokeBuffered } from "#http/buffered-invoke.ts";
import { type RouteInvoker, runJob } from "#http/job-runner.ts";
import type { HttpResponse } from "#http/responses.ts";
import { isStreamingHandler, type StreamingHandler } from "#http/streaming.ts";
import { handler as annotate } from "#functions/annotate.ts";
import { handler as convert } from "#functions/convert.ts";
import { handler as merge } from "#functions/merge.ts";
import { handler as metadata } from "#functions/metadata.ts";
import { handler as pages } from "#functions/pages.ts";
import { handler as protect } from "#functions/protect.ts";
import { handler as sign } from "#functions/sign.ts";
import { handler as split } from "#functions/split.ts";
import { handler as stamp } from "#functions/stamp.ts";
import { handler as timestamp } from "#functions/timestamp.ts";
import { handler as unprotect } from "#functions/unprotect.ts";
import { handler as verify } from "#functions/verify.ts";
import { processContainer } from "#wiring/container.ts";
import { jobRunnerDeps } from "#wiring/jobs.ts";

/** asyncHandlers are the handlers of the routes that take Prefer: respond-async: a job runs the route's own. */
export const asyncHandlers: Record<string, unknown> = {
  sign,
  annotate,
  convert,
  verify,
  timestamp,
  // The PDF tools (issue 38).
  merge,
  split,
  pages,
  stamp,
  metadata,
  protect,
  unprotect,
};

/** invokeRoute calls a route's Lambda handler with the job's event, buffering a streamed answer. */
const invokeRoute: RouteInvoker = async (route, event, context) => {
  const handler = asyncHandlers[route];
  if (!handler) throw new Error(`no async route named ${route}`);
  if (isStreamingHandler(handler)) return invokeBuffered(handler as StreamingHandler<APIGatewayProxyEvent, Context>, event, context);
  return (handler as (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>)(event, context);
};

const deps = jobRunnerDeps(processContainer(), invokeRoute);

/**
 * handler is the job worker (SQS event source, batch size 1, ReportBatchItemFailures): it runs each
 * job of the batch through its route's handler within the function's 15 minutes. A job whose store
 * could not be read or written is reported failed, so SQS delivers it again (three times, then the
 * dead-letter queue); a job's own failure (a 4xx or 5xx answer) is its result, not a retry.
 */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse["batchItemFailures"] = [];
  for (const record of event.Records) {
    try {
      const { jobId } = JSON.parse(record.body) as { jobId: string };
      await runJob(jobId, deps!, context);
    } catch (error) {
      logger.error("job not run", { messageId: record.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};

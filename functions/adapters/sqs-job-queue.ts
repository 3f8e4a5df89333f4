import { SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { SignetError } from "#domain/shared/errors.ts";
import type { JobQueue } from "#domain/jobs/job.ts";

/**
 * createSqsJobQueue hands each queued job to the worker Lambda through an SQS queue (the message
 * is the job id; the job store holds the rest). The queue's visibility time-out exceeds the
 * worker's, and a dead-letter queue takes a message the worker failed on three times.
 */
export function createSqsJobQueue(options: { region: string; queueUrl: string }): JobQueue {
  const client = new SQSClient({ region: options.region, maxAttempts: 3 });
  return {
    async enqueue(id) {
      try {
        await client.send(new SendMessageCommand({ QueueUrl: options.queueUrl, MessageBody: JSON.stringify({ jobId: id }) }));
      } catch (error) {
        throw new SignetError("SERVICE_UNAVAILABLE", "The job could not be queued right now; retry in a moment.", { cause: error });
      }
    },
  };
}

import { Duration, Validations } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import type { Bucket } from "aws-cdk-lib/aws-s3";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";

import { JOB_WORKER_TIMEOUT_SECONDS } from "#functions/timeouts.ts";
import { type Binding, bind, jobObjects, jobStore } from "./bind.ts";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";

/** JOB_RECEIVES is how often SQS hands the worker one job before the dead-letter queue takes it. */
export const JOB_RECEIVES = 3;

/** JobWorkerProps: the worker function (functions/jobs-worker.ts), the key table and the uploads bucket. */
export interface JobWorkerProps {
  fn: LambdaFunction;
  table: ITable;
  uploads: Bucket;
}

/**
 * JobWorker runs the jobs of Prefer: respond-async off the request path: an SQS queue (encrypted,
 * TLS only) whose visibility time-out is six times the worker's 15 minutes (AWS's advice for a
 * Lambda event source, and above the job's lease), the worker function reading it one job at a time
 * with ReportBatchItemFailures, and a dead-letter queue for a job the worker failed on three times
 * (a store it could not reach; a job's own failure is its result). Results and requests live
 * under jobs/ of the uploads bucket, where a lifecycle rule deletes them after a day (SIGNET_JOB_TTL's
 * 24 h; the job reads expired from then on).
 */
export class JobWorker extends Construct {
  readonly fn: LambdaFunction;
  readonly queue: Queue;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: JobWorkerProps) {
    super(scope, id);
    this.fn = props.fn;
    this.deadLetters = new Queue(this, "DeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetters).acknowledge({
      id: "AwsSolutions-SQS3",
      reason: "This queue is the dead-letter queue of the job queue: its messages are kept 14 days for an operator to read, never redriven automatically.",
    });
    this.queue = new Queue(this, "Queue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(6 * JOB_WORKER_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(1),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: JOB_RECEIVES },
    });
    this.fn.addEventSource(new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true }));
    bind(this.fn, jobStore(props.table, props.uploads));
    props.uploads.addLifecycleRule({ id: "expire-jobs", prefix: jobObjects.replace("*", ""), expiration: Duration.days(1) });
  }

  /** submitter lets a function queue jobs: the queue's URL and sqs:SendMessage on it. */
  submitter(): Binding {
    return {
      env: { SIGNET_JOB_QUEUE_URL: this.queue.queueUrl },
      statements: [new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [this.queue.queueArn] })],
    };
  }
}

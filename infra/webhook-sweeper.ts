import { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction as LambdaTarget } from "aws-cdk-lib/aws-events-targets";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { bind, jobExpiry, webhookTable } from "./bind.ts";

/** WebhookSweeperProps: the sweeper function (functions/webhook-sweeper.ts), the key table that holds the deliveries and jobs, the uploads bucket of job results. */
export interface WebhookSweeperProps {
  fn: LambdaFunction;
  table: ITable;
  uploads: IBucket;
}

/**
 * WebhookSweeper makes the retries of job webhooks: an EventBridge rule runs the sweeper function
 * every minute; it expires the jobs with a callbackUrl whose results passed their expiry (their
 * job.expired webhook), then reads the due queue (WEBHOOK-DUE in the key table) and sends what is
 * due: the first attempt of each webhook too (a finished job only queues it), so on AWS a webhook
 * goes out within about a minute of the job's end.
 * It is not in a VPC: it must reach the receivers on the internet (the safe fetcher refuses
 * private addresses). The rule runs 43,200 times a month whether or not anything is due.
 */
export class WebhookSweeper extends Construct {
  readonly fn: LambdaFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: WebhookSweeperProps) {
    super(scope, id);
    this.fn = props.fn;
    bind(props.fn, webhookTable(props.table), jobExpiry(props.table, props.uploads));
    this.schedule = new Rule(this, "Schedule", {
      description: "Signet: send the job webhooks whose retry is due (every minute)",
      schedule: Schedule.rate(Duration.minutes(1)),
      // A missed run is made up by the next one: no retries, no old events.
      targets: [new LambdaTarget(props.fn, { retryAttempts: 0, maxEventAge: Duration.minutes(2) })],
    });
  }
}

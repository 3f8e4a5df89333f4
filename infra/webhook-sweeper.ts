import { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction as LambdaTarget } from "aws-cdk-lib/aws-events-targets";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { bind, webhookTable } from "./bind.ts";

/** WebhookSweeperProps: the sweeper function (functions/webhook-sweeper.ts) and the key table that holds the deliveries. */
export interface WebhookSweeperProps {
  fn: LambdaFunction;
  table: ITable;
}

/**
 * WebhookSweeper makes the retries of job webhooks: an EventBridge rule runs the sweeper function
 * every minute; it reads the due queue (WEBHOOK-DUE in the key table) and sends what is due. The
 * first attempt of each webhook is made by whoever finished the job; this function only retries.
 * It is not in a VPC: it must reach the receivers on the internet (the safe fetcher refuses
 * private addresses). The rule runs 43,200 times a month whether or not anything is due.
 */
export class WebhookSweeper extends Construct {
  readonly fn: LambdaFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: WebhookSweeperProps) {
    super(scope, id);
    this.fn = props.fn;
    bind(props.fn, webhookTable(props.table));
    this.schedule = new Rule(this, "Schedule", {
      description: "Signet: send the job webhooks whose retry is due (every minute)",
      schedule: Schedule.rate(Duration.minutes(1)),
      // A missed run is made up by the next one: no retries, no old events.
      targets: [new LambdaTarget(props.fn, { retryAttempts: 0, maxEventAge: Duration.minutes(2) })],
    });
  }
}

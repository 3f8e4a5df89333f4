import { Duration } from "aws-cdk-lib";
import type { RestApi } from "aws-cdk-lib/aws-apigateway";
import { Alarm, ComparisonOperator, type IMetric, Metric, Stats, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { ConfigurationSet } from "aws-cdk-lib/aws-ses";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { Construct } from "constructs";
import { planOf, type FunctionName } from "./function-plans.ts";

/**
 * AlarmSet is how many alarms `-c alarms=...` asks for. "small" (the default) stays within the
 * CloudWatch free tier of 10 standard alarms: what tells a personal deployment that it is broken
 * or being abused. "full" adds throttles and near-time-out durations of every function, one pair
 * each (USD 0.10 per alarm a month beyond the free ten).
 */
export type AlarmSet = "small" | "full";

/** FREE_TIER_ALARMS is how many standard alarms CloudWatch's free tier covers a month. */
export const FREE_TIER_ALARMS = 10;

/** AlarmParts are what the alarms watch and where they go. */
export interface AlarmParts {
  email: string;
  set: AlarmSet;
  api: RestApi;
  functions: Record<string, LambdaFunction>;
  mailConfiguration: ConfigurationSet;
  /** logicalId names a function's alarms after its CloudFormation id. */
  logicalId: (name: string) => string;
}

const above = (threshold: number, evaluationPeriods = 1) => ({
  threshold,
  evaluationPeriods,
  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
  treatMissingData: TreatMissingData.NOT_BREACHING,
});
const atLeast = (threshold: number) => ({ ...above(threshold), comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD });
const fiveMinutes = (metric: IMetric, statistic: string) => (metric as Metric).with({ statistic, period: Duration.minutes(5) });

/**
 * createAlarms makes the alarms of the set and mails them through one SNS topic. Not encrypted at
 * rest, on purpose: CloudWatch alarms cannot publish to a topic under the AWS managed key
 * (aws/sns; its policy admits no service principal), a customer managed key would cost USD 1 a
 * month, and alarm notices carry no secrets. Publishing is TLS-only (enforceSSL).
 */
export function createAlarms(scope: Construct, parts: AlarmParts): Alarm[] {
  const topic = new Topic(scope, "AlarmTopic", { displayName: "Signet alarms", enforceSSL: true });
  topic.addSubscription(new EmailSubscription(parts.email));
  const alarms = [...commonAlarms(scope, parts), ...(parts.set === "full" ? perFunctionAlarms(scope, parts) : accountAlarms(scope, parts))];
  const action = new SnsAction(topic);
  for (const alarm of alarms) alarm.addAlarmAction(action);
  return alarms;
}

/** commonAlarms are in both sets: the API's 5xx rate, crashes anywhere and in the office function, the mail reputation. */
function commonAlarms(scope: Construct, parts: AlarmParts): Alarm[] {
  const office = parts.functions.office!;
  // SES reviews an account at a 5 % bounce rate or a 0.1 % complaint rate; warn well before.
  const reputation = (metricName: string) =>
    new Metric({
      namespace: "AWS/SES",
      metricName,
      dimensionsMap: { "ses:configuration-set": parts.mailConfiguration.configurationSetName },
      statistic: Stats.MAXIMUM,
      period: Duration.hours(1),
    });
  return [
    new Alarm(scope, "Api5xxRateAlarm", {
      alarmDescription: "More than 5% of API requests answered 5xx over 10 minutes",
      metric: parts.api.metricServerError({ statistic: Stats.AVERAGE, period: Duration.minutes(5) }),
      ...above(0.05, 2),
    }),
    // The handlers answer their failures; a Lambda error is a crash, an out-of-memory or a time-out.
    new Alarm(scope, "LambdaErrorsAlarm", {
      alarmDescription: "A Lambda function of the account crashed or timed out (Errors, all functions)",
      metric: fiveMinutes(LambdaFunction.metricAllErrors(), Stats.SUM),
      ...atLeast(1),
    }),
    // The office function answers every failure as a value: an error there is LibreOffice's function dying.
    new Alarm(scope, "OfficeErrorsAlarm", {
      alarmDescription: "The office function (LibreOffice) crashed or timed out",
      metric: office.metricErrors({ statistic: Stats.SUM, period: Duration.minutes(5) }),
      ...atLeast(1),
    }),
    new Alarm(scope, "MailBounceRateAlarm", {
      alarmDescription: "Bounce rate of Signet's mail above 2% (SES reviews the account at 5%)",
      metric: reputation("Reputation.BounceRate"),
      ...above(0.02),
    }),
    new Alarm(scope, "MailComplaintRateAlarm", {
      alarmDescription: "Complaint rate of Signet's mail above 0.05% (SES reviews the account at 0.1%)",
      metric: reputation("Reputation.ComplaintRate"),
      ...above(0.0005),
    }),
  ];
}

/** accountAlarms are the small set's: throttles anywhere in the account, and each office function near its time-out. */
function accountAlarms(scope: Construct, parts: AlarmParts): Alarm[] {
  const nearTimeOut = (id: string, name: "office" | "office-jobs", what: string) => {
    const timeoutMs = planOf(name).timeoutSeconds * 1000;
    return new Alarm(scope, id, {
      alarmDescription: `${what} ran within 20% of its ${timeoutMs / 1000} s time-out`,
      metric: parts.functions[name]!.metricDuration({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
      ...atLeast(Math.round(timeoutMs * 0.8)),
    });
  };
  return [
    new Alarm(scope, "LambdaThrottlesAlarm", {
      alarmDescription: "Lambda throttled a function of the account (concurrency exhausted?)",
      metric: fiveMinutes(LambdaFunction.metricAllThrottles(), Stats.SUM),
      ...atLeast(1),
    }),
    nearTimeOut("OfficeDurationAlarm", "office", "The office function"),
    // A job's conversion may rightly run long: near the 874 s, a job's large document is about to fail.
    nearTimeOut("OfficeJobsDurationAlarm", "office-jobs", "The jobs' office function"),
  ];
}

/** perFunctionAlarms are the full set's: throttles and near-time-out durations of every function. */
function perFunctionAlarms(scope: Construct, parts: AlarmParts): Alarm[] {
  return Object.entries(parts.functions).flatMap(([name, fn]) => {
    const id = parts.logicalId(name);
    const timeoutMs = planOf(name as FunctionName).timeoutSeconds * 1000;
    return [
      new Alarm(scope, `${id}ThrottlesAlarm`, {
        alarmDescription: `Lambda throttled ${name} (account concurrency exhausted?)`,
        metric: fn.metricThrottles({ statistic: Stats.SUM, period: Duration.minutes(5) }),
        ...atLeast(1),
      }),
      new Alarm(scope, `${id}DurationAlarm`, {
        alarmDescription: `${name} ran within 20% of its ${timeoutMs / 1000} s time-out`,
        metric: fn.metricDuration({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
        ...atLeast(Math.round(timeoutMs * 0.8)),
      }),
    ];
  });
}

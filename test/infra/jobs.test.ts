import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";
import { JOB_WORKER_TIMEOUT_SECONDS } from "#functions/timeouts.ts";
import { JOB_RECEIVES } from "../../infra/jobs.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, SYNTH_TIMEOUT_MS, synthesize, type Synthesized } from "#test/helpers/infra-synth.ts";

// Async jobs on AWS (infra/jobs.ts): the queue, its dead-letter queue, the worker and its event
// source, the job records (JOB# items) and the jobs/ folder with its lifecycle rule.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const envOf = (name: string) => (fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables;
const actions = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]).sort();
const queues = () => resourcesOfType(synth.json, "AWS::SQS::Queue");

function statementsOf(name: string): Statement[] {
  const role = (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  return resourcesOfType(synth.json, "AWS::IAM::Policy")
    .filter(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === role))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: [] }).Statement);
}

const asyncRoutes = routes.filter((route) => route.async).map((route) => route.name);

describe("async jobs on AWS", () => {
  it("run sign, annotate, convert, verify, timestamp and the PDF tools", () => {
    expect(asyncRoutes.sort()).toEqual([
      "annotate",
      "convert",
      "merge",
      "metadata",
      "pages",
      "protect",
      "sign",
      "split",
      "stamp",
      "timestamp",
      "unprotect",
      "verify",
    ]);
  });

  it("queue into SQS with a dead-letter queue, a visibility time-out above the worker's 15 minutes, encrypted", () => {
    const [queue, deadLetters] = [queues().find(([id]) => id.startsWith("JobsQueue")), queues().find(([id]) => id.startsWith("JobsDeadLetters"))];
    expect(queue && deadLetters).toBeTruthy();
    const props = queue![1].Properties;
    expect(props.VisibilityTimeout).toBeGreaterThan(JOB_WORKER_TIMEOUT_SECONDS);
    expect(props.RedrivePolicy).toEqual({ deadLetterTargetArn: { "Fn::GetAtt": [deadLetters![0], "Arn"] }, maxReceiveCount: JOB_RECEIVES });
    expect(props.SqsManagedSseEnabled).toBe(true);
    expect(deadLetters![1].Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it("are run by the worker, 15 minutes, one job per batch, reporting batch item failures", () => {
    expect(fnProps("jobs-worker").Timeout).toBe(JOB_WORKER_TIMEOUT_SECONDS);
    const [, mapping] = resourcesOfType(synth.json, "AWS::Lambda::EventSourceMapping").find(([, resource]) =>
      JSON.stringify(resource.Properties.FunctionName).includes(functionLogicalId("jobs-worker")),
    )!;
    expect(mapping.Properties).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ["ReportBatchItemFailures"] });
  });

  it("are queued only by the async routes' functions, which name the queue", () => {
    for (const route of routes) {
      const sends = statementsOf(route.name).filter((statement) => actions(statement).includes("sqs:SendMessage"));
      expect(sends.length, route.name).toBe(asyncRoutes.includes(route.name) ? 1 : 0);
      expect(envOf(route.name).SIGNET_JOB_QUEUE_URL !== undefined, route.name).toBe(asyncRoutes.includes(route.name));
    }
  });

  it("keep records in the key table's JOB# items and objects under jobs/, for the async routes, the job routes and the worker", () => {
    const holders = [...asyncRoutes, "job", "job-redeliver", "jobs-worker"];
    for (const name of [...routes.map((route) => route.name), "jobs-worker"]) {
      const records = statementsOf(name).filter((statement) => JSON.stringify(statement.Condition ?? {}).includes("JOB#"));
      const objects = statementsOf(name).filter((statement) => JSON.stringify(statement.Resource).includes('"/jobs/*"'));
      expect([records.length, objects.length], name).toEqual(holders.includes(name) ? [1, 1] : [0, 0]);
    }
  });

  it("expire the jobs/ folder of the uploads bucket after a day (SIGNET_JOB_TTL's 24 h)", () => {
    const [, bucket] = resourcesOfType(synth.json, "AWS::S3::Bucket").find(([id]) => id.startsWith("UploadsBucket"))!;
    const rules = (bucket.Properties.LifecycleConfiguration as { Rules: Array<Record<string, unknown>> }).Rules;
    expect(rules).toContainEqual(expect.objectContaining({ Id: "expire-jobs", Prefix: "jobs/", ExpirationInDays: 1, Status: "Enabled" }));
  });

  it("let the worker sign as sign does: the signing key's policy names its role beside sign's", () => {
    const keys = resourcesOfType(synth.json, "AWS::KMS::Key");
    const policies = JSON.stringify(keys.map(([, key]) => key.Properties.KeyPolicy));
    const roleOf = (name: string) => (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    expect(policies).toContain(roleOf("jobs-worker"));
    expect(policies).toContain(roleOf("sign"));
  });
});

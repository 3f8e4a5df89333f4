import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkedRegions, regionGaps } from "../../infra/regions.ts";
import { FREE_TIER_ALARMS } from "../../infra/alarms.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { officeCallers } from "../../infra/function-plans.ts";
import { repoRoot } from "../../infra/bundling.ts";
import { cfnLint, type CfnLintMatch } from "#test/helpers/cfn-lint.ts";
import { apiPaths, cdkHelperFunction, resourcesOfType, synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// Every AWS claim checked offline. The default template and one with every option on are
// synthesized once each; cfn-lint (AWS's) lints both, and every number docs/aws.md states is read
// back from them, so the page cannot drift from the stack again.
let plain: Synthesized;
let everything: Synthesized;
beforeAll(() => {
  plain = synthesize({ senderEmail: "noreply@example.com" });
  everything = synthesize(
    {
      senderEmail: "noreply@example.com",
      alarmEmail: "ops@example.com",
      alarms: "full",
      budgetUsd: "20",
      reservedConcurrency: "5",
      verifyConcurrency: "7",
      tsaUrl: "https://tsa.example.com/tsr",
      identityP12PasswordParameter: "/signet/identity-p12-password",
      corsOrigin: "https://app.example.com",
      existingSenderIdentity: "true",
      sesSandbox: "false",
      keyRatePerMinute: "30",
      registerAllow: "example.com",
      throttleRate: "20",
      throttleBurst: "40",
    },
    // Only its template is read (cfn-lint, counts): the code needs no bundling.
    { bundle: false },
  );
}, 2 * SYNTH_TIMEOUT_MS);

const templateFile = (synth: Synthesized) => join(synth.outdir, `${synth.stackName}.template.json`);

/**
 * keptWarnings are the cfn-lint warnings the stack keeps, each with its reason. Any other warning,
 * and any error, fails the test.
 */
const keptWarnings: Record<string, string> = {
  W3005:
    "CDK's lambda.Function adds DependsOn its service role (and its default policy) beside the Role GetAtt; the role part is redundant and harmless, " +
    "and the policy part is what makes the function wait for its permissions.",
};

/** regionGap reads cfn-lint's "Resource type 'AWS::X::Y' does not exist in 'region'" (E3006) as [region, gap]. */
function regionGap(match: CfnLintMatch): [string, string] | undefined {
  const found = /^Resource type '(AWS::\w+::\w+)' does not exist in '([\w-]+)'$/.exec(match.Message);
  if (match.Rule.Id !== "E3006" || !found) return undefined;
  const gap = { "AWS::Budgets::Budget": "budget", "AWS::SES::ConfigurationSet": "ses", "AWS::SES::EmailIdentity": "ses" }[found[1]!];
  return [found[2]!, gap ?? `unexpected: ${found[1]}`];
}

describe("cfn-lint (AWS's, Python), for every region", () => {
  // One run per template, every region at once: the plain findings, and which regions lack a
  // resource type (regionGaps, infra/regions.ts, must say the same).
  const lint = (synth: Synthesized) => {
    const matches = cfnLint(templateFile(synth), checkedRegions);
    const unexplained = matches
      .filter((match) => !regionGap(match) && (match.Level === "Error" || !(match.Rule.Id in keptWarnings)))
      .map((match) => `${match.Level} ${match.Rule.Id} at ${match.Location.Path.join("/")}: ${match.Message}`);
    const gaps = matches.map(regionGap).filter((gap) => gap !== undefined);
    return { unexplained, gaps };
  };
  const tableGaps = (present: (gap: string) => boolean) =>
    Object.entries(regionGaps)
      .flatMap(([region, gaps]) => gaps.filter(present).map((gap) => `${region} ${gap}`))
      .sort();
  const distinct = (gaps: Array<[string, string]>) => [...new Set(gaps.map(([region, gap]) => `${region} ${gap}`))].sort();

  it("finds no error and no warning beyond the kept ones in the default template, and SES where infra/regions.ts says", () => {
    const { unexplained, gaps } = lint(plain);
    expect(unexplained).toEqual([]);
    expect(distinct(gaps)).toEqual(tableGaps((gap) => gap === "ses"));
  }, 300_000);

  it("finds the same with every option on, and the budget's resource type where infra/regions.ts says", () => {
    const { unexplained, gaps } = lint(everything);
    expect(unexplained).toEqual([]);
    // existingSenderIdentity: no EmailIdentity, but the configuration set is still there.
    expect(distinct(gaps)).toEqual(tableGaps(() => true));
  }, 300_000);
});

// docs/aws.md with its line breaks folded, so a number may sit across a wrapped line.
const page = readFileSync(join(repoRoot, "docs", "aws.md"), "utf8").replace(/\s+/g, " ");

/** stated reads every number a phrase of docs/aws.md gives (the pattern's first group); at least one. */
function stated(pattern: RegExp): number[] {
  const found = [...page.matchAll(new RegExp(pattern.source, "g"))].map((match) => Number(match[1]));
  expect(found.length, `docs/aws.md no longer says ${pattern}`).toBeGreaterThan(0);
  return found;
}
const only = (pattern: RegExp): number => {
  const values = [...new Set(stated(pattern))];
  expect(values, `docs/aws.md states ${pattern} with different numbers`).toHaveLength(1);
  return values[0]!;
};

// Signet's functions, not CDK's own two helpers for the office VPC (the page says so).
const functionsOf = (synth: Synthesized) => resourcesOfType(synth.json, "AWS::Lambda::Function").filter(([id]) => !cdkHelperFunction(id));
const fnProps = (synth: Synthesized, name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const methods = (synth: Synthesized) => {
  const paths = apiPaths(synth.json);
  return resourcesOfType(synth.json, "AWS::ApiGateway::Method").map(([, method]) => {
    const properties = method.Properties as {
      HttpMethod: string;
      AuthorizationType: string;
      ResourceId: { Ref?: string };
      Integration?: { TimeoutInMillis?: number; ResponseTransferMode?: string };
    };
    return { ...properties, path: properties.ResourceId.Ref ? paths.get(properties.ResourceId.Ref)! : "/" };
  });
};

describe("the numbers docs/aws.md states, read from the template", () => {
  it("the number of functions, zip and image", () => {
    expect(only(/\*\*(\d+) Lambda functions\*\*/)).toBe(functionsOf(plain).length);
    expect(only(/each of the (\d+) functions/)).toBe(functionsOf(plain).length);
    const images = functionsOf(plain).filter(([, fn]) => fn.Properties.PackageType === "Image").length;
    expect(only(/(\d+) zip functions/)).toBe(functionsOf(plain).length - images);
    expect(only(/zip functions and (\d+) \(the office functions\)/)).toBe(images);
    expect(images).toBe(2);
  });

  it("the routes behind the authorizer, and its cache time", () => {
    const listed = page.match(/a \*\*TOKEN authorizer\*\* on (.*?) cached/)?.[1] ?? "";
    const documented = [...listed.matchAll(/`(GET|POST|DELETE|PUT|PATCH) ([^`]+)`/g)].map((match) => `${match[1]} ${match[2]}`).sort();
    const guarded = methods(plain)
      .filter((method) => method.AuthorizationType === "CUSTOM" && method.HttpMethod !== "HEAD")
      .map((method) => `${method.HttpMethod} ${method.path}`)
      .sort();
    expect(documented).toEqual(guarded);
    // HEAD beside each GET, as the page says.
    const heads = methods(plain).filter((method) => method.AuthorizationType === "CUSTOM" && method.HttpMethod === "HEAD");
    expect(heads.map((method) => method.path).sort()).toEqual(guarded.filter((route) => route.startsWith("GET ")).map((route) => route.slice(4)));
    const [authorizer] = resourcesOfType(plain.json, "AWS::ApiGateway::Authorizer");
    const ttl = authorizer![1].Properties.AuthorizerResultTtlInSeconds;
    expect(only(/cached (\d+) seconds per `Authorization` header/)).toBe(ttl);
    expect(only(/until its cached answer expires \(at most (\d+) seconds\)/)).toBe(ttl);
  });

  it("the alarms and what they cost (the full set here; the default set in options.test.ts)", () => {
    const alarms = resourcesOfType(everything.json, "AWS::CloudWatch::Alarm").length;
    expect(only(/(\d+) CloudWatch alarms in the full set/)).toBe(alarms);
    // USD 0.10 per standard alarm a month, the free tier's ten aside.
    expect(only(/about USD (\d+\.\d+) a month for the \d+ CloudWatch alarms in the full set/)).toBeCloseTo(alarms * 0.1, 2);
    expect(only(/beyond the free tier's (\d+) alarms/)).toBe(FREE_TIER_ALARMS);
    expect(resourcesOfType(plain.json, "AWS::CloudWatch::Alarm")).toEqual([]);
    // The alarm topic is not encrypted, as the page says.
    for (const [, topic] of resourcesOfType(everything.json, "AWS::SNS::Topic")) expect(topic.Properties.KmsMasterKeyId).toBeUndefined();
  });

  it("the time-outs: integrations, functions, the conversion limit", () => {
    const buffered = methods(plain).filter((method) => method.Integration?.TimeoutInMillis && method.Integration.ResponseTransferMode !== "STREAM");
    const streamed = methods(plain).filter((method) => method.Integration?.ResponseTransferMode === "STREAM");
    expect(new Set(buffered.map((method) => method.Integration!.TimeoutInMillis))).toEqual(new Set([only(/(\d+) s for buffered routes/) * 1000]));
    expect(streamed.map((method) => `${method.HttpMethod} ${method.path}`).sort()).toEqual([
      "POST /v1/annotate",
      "POST /v1/convert",
      "POST /v1/merge",
      "POST /v1/metadata",
      "POST /v1/pages",
      "POST /v1/protect",
      "POST /v1/sign",
      "POST /v1/split",
      "POST /v1/stamp",
      "POST /v1/unprotect",
    ]);
    expect(new Set(streamed.map((method) => method.Integration!.TimeoutInMillis))).toEqual(new Set([only(/and (\d+) s for the streamed ones/) * 1000]));
    // The job worker converts too, with a job's 15 minutes (infra/jobs.ts, docs/aws.md's async jobs).
    for (const name of officeCallers.filter((name) => name !== "jobs-worker"))
      expect(only(/sign, annotate and convert may run (\d+) s/), name).toBe(fnProps(plain, name).Timeout);
    // LibreOffice's limits are the office function's.
    const office = fnProps(plain, "office");
    const conversionS = Number((office.Environment as { Variables: Record<string, string> }).Variables.SIGNET_CONVERSION_TIMEOUT_MS) / 1000;
    expect(only(/a (\d+) s conversion limit/)).toBe(conversionS);
    expect(only(/LibreOffice stops at (\d+) s/)).toBe(conversionS);
    expect(only(/LibreOffice may run up to (\d+) s of the office function's/)).toBe(conversionS);
    expect(only(/conversion limit inside its own (\d+) s/)).toBe(office.Timeout);
    expect(only(/The office function may run (\d+) s/)).toBe(office.Timeout);
    // The jobs' office function: the job's budget less margins, and LibreOffice's limit inside it (issue 38).
    const jobsOffice = fnProps(plain, "office-jobs");
    expect(only(/The jobs' office function may run (\d+) s/)).toBe(jobsOffice.Timeout);
    const jobsConversionS = Number((jobsOffice.Environment as { Variables: Record<string, string> }).Variables.SIGNET_CONVERSION_TIMEOUT_MS) / 1000;
    expect(only(/a job's conversion may run up to (\d+) s/)).toBe(jobsConversionS);
    expect(only(/inside its callers' (\d+) s/)).toBe(fnProps(plain, "convert").Timeout);
    expect(only(/gets `HOME=\/tmp` \(LibreOffice writes its profile there\), (\d+) MB of memory/)).toBe(office.MemorySize);
    expect(only(/the other routes (\d+) s per request/)).toBe(buffered[0]!.Integration!.TimeoutInMillis! / 1000);
    expect(only(/Register and verify-code may run (\d+) s/)).toBe(fnProps(plain, "auth-register").Timeout);
    expect(fnProps(plain, "auth-verify").Timeout).toBe(fnProps(plain, "auth-register").Timeout);
    expect(only(/may run \d+ s and the authorizer (\d+) s/)).toBe(fnProps(plain, "authorizer").Timeout);
  });

  it("the stage throttling and the log retention", () => {
    const [, stage] = resourcesOfType(plain.json, "AWS::ApiGateway::Stage")[0]!;
    const settings = stage.Properties.MethodSettings as Array<{ ResourcePath: string; ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    const all = settings.find((setting) => setting.ResourcePath === "/*")!;
    const register = settings.find((setting) => setting.ResourcePath === "/~1v1~1auth~1register")!;
    expect(only(/stage throttling \((\d+) req\/s/)).toBe(all.ThrottlingRateLimit);
    expect(only(/stage throttling \(\d+ req\/s, burst (\d+)/)).toBe(all.ThrottlingBurstLimit);
    expect(only(/burst \d+; register (\d+) req\/s/)).toBe(register.ThrottlingRateLimit);
    // The office VPC's DNS query log (the resolver's destination) is kept shorter, as the page says.
    const queryLog = JSON.stringify(resourcesOfType(plain.json, "AWS::Route53Resolver::ResolverQueryLoggingConfig")[0]![1].Properties.DestinationArn);
    const groups = resourcesOfType(plain.json, "AWS::Logs::LogGroup");
    const isQueryLog = (id: string) => queryLog.includes(`"Ref":"${id}"`);
    const retention = new Set(groups.filter(([id]) => !isQueryLog(id)).map(([, group]) => group.Properties.RetentionInDays));
    expect(retention).toEqual(new Set([only(/log groups \((\d+) days\)/)]));
    expect(groups.filter(([id]) => isQueryLog(id)).map(([, group]) => group.Properties.RetentionInDays)).toEqual([only(/DNS query log \((\d+) days\)/)]);
  });
});

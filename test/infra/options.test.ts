import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";
import { FREE_TIER_ALARMS } from "../../infra/alarms.ts";
import { repoRoot } from "../../infra/bundling.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// The optional contexts (TSA, SES sandbox, alarm e-mail, CORS origin, extra fonts, existing SES identity). Synthesized once.
let synth: Synthesized;
// A small stand-in for a folder of extra fonts (the real one, fonts-hanazono, is 52 MB).
const extraFonts = mkdtempSync(join(tmpdir(), "signet-extra-fonts-"));
copyFileSync(new URL("../../assets/fonts/NotoSansThai-Regular.ttf", import.meta.url), join(extraFonts, "NotoSansThai-Regular.ttf"));
beforeAll(() => {
  synth = synthesize({
    senderEmail: "noreply@example.com",
    tsaUrl: "https://freetsa.org/tsr",
    sesSandbox: "true",
    alarmEmail: "ops@example.com",
    corsOrigin: "https://app.example.com",
    extraFontsDir: extraFonts,
    existingSenderIdentity: "true",
  });
}, SYNTH_TIMEOUT_MS);

const allNames = [...routes.map((route) => route.name), "authorizer", "fallback"];
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const env = (name: string) => (fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables;

describe("optional contexts", () => {
  it("gives the timestamp authority to sign and timestamp only", () => {
    for (const name of allNames) expect(env(name).SIGNET_TSA_URL, name).toBe(["sign", "timestamp"].includes(name) ? "https://freetsa.org/tsr" : undefined);
  });

  it("in the SES sandbox, lets the mail functions send to verified identities but only from the sender address", () => {
    const role = (fnProps("auth-register").Role as { "Fn::GetAtt": [string] })["Fn::GetAtt"][0];
    const statements = resourcesOfType(synth.json, "AWS::IAM::Policy")
      .filter(([, p]) => (p.Properties.Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement)
      .filter((s) => s.Action === "ses:SendEmail");
    expect(statements).toHaveLength(2);
    const wide = statements.find((s) => s.Condition);
    expect(wide!.Condition).toEqual({ StringEquals: { "ses:FromAddress": "noreply@example.com" } });
    expect(JSON.stringify(wide!.Resource)).toContain(":identity/*");
  });

  it("with existingSenderIdentity, creates no SES identity and sends from the address's or its domain's, through the stack's configuration set", () => {
    synth.template.resourceCountIs("AWS::SES::EmailIdentity", 0);
    const [setId] = resourcesOfType(synth.json, "AWS::SES::ConfigurationSet")[0]!;
    for (const name of ["auth-register", "auth-verify"]) {
      expect(env(name).SIGNET_SES_CONFIGURATION_SET, name).toEqual({ Ref: setId });
      const role = (fnProps(name).Role as { "Fn::GetAtt": [string] })["Fn::GetAtt"][0];
      const resources = JSON.stringify(
        resourcesOfType(synth.json, "AWS::IAM::Policy")
          .filter(([, p]) => (p.Properties.Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
          .map(([, p]) => p.Properties.PolicyDocument),
      );
      expect(resources, name).toContain(":identity/noreply@example.com");
      expect(resources, name).toContain(":identity/example.com");
    }
    expect(() => synthesize({ senderEmail: "noreply@example.com", existingSenderIdentity: "yes" })).toThrow(/existingSenderIdentity must be true or false/);
  });

  it("answers CORS with the corsOrigin context, from every function and from the gateway's own errors", () => {
    for (const name of allNames) expect(env(name).SIGNET_CORS_ORIGIN, name).toBe("https://app.example.com");
    const responses = resourcesOfType(synth.json, "AWS::ApiGateway::GatewayResponse");
    expect(responses.length).toBeGreaterThan(5);
    for (const [id, response] of responses) {
      expect((response.Properties.ResponseParameters as Record<string, string>)["gatewayresponse.header.Access-Control-Allow-Origin"], id).toBe(
        "'https://app.example.com'",
      );
    }
  });

  it("copies -c extraFontsDir's fonts beside sign's bundle and points SIGNET_EXTRA_FONTS_DIR at them; sign only", () => {
    for (const name of allNames) expect(env(name).SIGNET_EXTRA_FONTS_DIR, name).toBe(name === "sign" ? "/var/task/extra-fonts" : undefined);
    // sign is a zip (LibreOffice runs in the office function): the fonts are in its asset, not in the image.
    const signAsset = (fnProps("sign").Code as { S3Key: string }).S3Key.replace(/\.zip$/, "");
    expect(existsSync(join(synth.outdir, `asset.${signAsset}`, "extra-fonts", "NotoSansThai-Regular.ttf"))).toBe(true);
    expect(existsSync(join(synth.outdir, ".signet-image", "app", "extra-fonts"))).toBe(false);
    expect(() => synthesize({ senderEmail: "noreply@example.com", extraFontsDir: "/nonexistent" })).toThrow(
      /extraFontsDir "\/nonexistent" is not a folder with \.ttf files/,
    );
  });

  it("rejects a corsOrigin that is not * or one origin", () => {
    for (const corsOrigin of ["https://app.example.com/", "app.example.com", "https://a.example.com,https://b.example.com", "'*'"]) {
      expect(() => synthesize({ senderEmail: "noreply@example.com", corsOrigin }), corsOrigin).toThrow(/corsOrigin/);
    }
  });

  it("alarms by default on a small set within the free tier: the API 5xx rate, crashes, the office function, throttles, the mail", () => {
    synth.template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "5XXError",
      Namespace: "AWS/ApiGateway",
      Statistic: "Average",
      Threshold: 0.05,
    });
    const alarms = resourcesOfType(synth.json, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
    expect(alarms.length).toBeLessThanOrEqual(FREE_TIER_ALARMS);
    // What each alarm watches: a metric, and whose (the office function's, the whole account's, or the API's and the mail's own).
    const named = (dimensions: unknown, name: string) => JSON.stringify(dimensions).includes(`"Ref":"${functionLogicalId(name)}"`);
    const scope = (dimensions: unknown) =>
      dimensions === undefined ? "account" : named(dimensions, "office") ? "office" : named(dimensions, "office-jobs") ? "office-jobs" : "own";
    expect(alarms.map((a) => `${a.MetricName as string} ${scope(a.Dimensions)}`).sort()).toEqual([
      "5XXError own",
      "Duration office",
      "Duration office-jobs",
      "Errors account",
      "Errors office",
      "Reputation.BounceRate own",
      "Reputation.ComplaintRate own",
      "Throttles account",
    ]);
    // docs/aws.md says how many (test/infra/template-checks.test.ts checks the full set's figures).
    const page = readFileSync(join(repoRoot, "docs", "aws.md"), "utf8").replace(/\s+/g, " ");
    expect(Number(/(\d+) CloudWatch alarms by default/.exec(page)?.[1])).toBe(alarms.length);
    // Each office function near its own time-out (83 s, 874 s).
    for (const name of ["office", "office-jobs"]) {
      const duration = alarms.find((a) => a.MetricName === "Duration" && scope(a.Dimensions) === name)!;
      expect(duration.Threshold, name).toBe(Math.round((fnProps(name).Timeout as number) * 1000 * 0.8));
    }
  });

  it("mails every alarm to the alarm address", () => {
    synth.template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "ops@example.com" });
    const alarms = resourcesOfType(synth.json, "AWS::CloudWatch::Alarm");
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toHaveLength(1);
  });

  it("refuses an alarm set that is neither small nor full", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", alarmEmail: "ops@example.com", alarms: "all" })).toThrow(/alarms "all" must be small/);
  });

  it("refuses the removed layer mode's options, saying the image is the one way", () => {
    for (const option of ["libreOfficeLayerArn", "sofficePath"]) {
      expect(() => synthesize({ senderEmail: "noreply@example.com", [option]: "x" }), option).toThrow(/layer mode was removed.*container image/s);
    }
  });
});

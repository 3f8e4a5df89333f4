import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";
import { defaultLayerSoffice, functionLogicalId, libreOfficeFunctions } from "../../infra/signet-stack.ts";
import { resourcesOfType, synthesize, type Synthesized } from "#test/helpers/infra-synth.ts";

// The alternative deployment: every function a zip, LibreOffice from a layer; plus the optional
// contexts (TSA, SES sandbox, alarm e-mail, CORS origin). Synthesized once.
const layerArn = "arn:aws:lambda:eu-west-1:123456789012:layer:libreoffice:7";
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({
    senderEmail: "noreply@example.com",
    libreOfficeLayerArn: layerArn,
    tsaUrl: "https://freetsa.org/tsr",
    sesSandbox: "true",
    alarmEmail: "ops@example.com",
    corsOrigin: "https://app.example.com",
  });
}, 180_000);

const allNames = [...routes.map((route) => route.name), "authorizer", "fallback"];
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const env = (name: string) => (fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables;

describe("LibreOffice from a layer", () => {
  it("builds every function as a nodejs22.x zip, without any container image", () => {
    for (const name of allNames) {
      expect(fnProps(name).PackageType, name).toBeUndefined();
      expect(fnProps(name).Runtime, name).toBe("nodejs22.x");
    }
    const assets = JSON.parse(readFileSync(join(synth.outdir, `${synth.stack.stackName}.assets.json`), "utf8")) as { dockerImages: object };
    expect(assets.dockerImages).toEqual({});
  });

  it("attaches the layer and points SIGNET_SOFFICE into it, only on the LibreOffice functions", () => {
    for (const name of allNames) {
      if ((libreOfficeFunctions as readonly string[]).includes(name)) {
        expect(fnProps(name).Layers, name).toEqual([layerArn]);
        expect(env(name), name).toMatchObject({ HOME: "/tmp", SIGNET_SOFFICE: defaultLayerSoffice, SIGNET_CONVERSION_CONCURRENCY: "1" });
      } else {
        expect(fnProps(name).Layers, name).toBeUndefined();
        expect(env(name).SIGNET_SOFFICE, name).toBeUndefined();
      }
    }
  });

  it("gives the timestamp authority to sign only", () => {
    for (const name of allNames) expect(env(name).SIGNET_TSA_URL, name).toBe(name === "sign" ? "https://freetsa.org/tsr" : undefined);
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

  it("answers CORS with the corsOrigin context, from every function and from the gateway's own errors", () => {
    for (const name of allNames) expect(env(name).SIGNET_CORS_ORIGIN, name).toBe("https://app.example.com");
    const responses = resourcesOfType(synth.json, "AWS::ApiGateway::GatewayResponse");
    expect(responses.length).toBeGreaterThan(5);
    for (const [id, response] of responses) {
      expect((response.Properties.ResponseParameters as Record<string, string>)["gatewayresponse.header.Access-Control-Allow-Origin"], id).toBe("'https://app.example.com'");
    }
  });

  it("rejects a corsOrigin that is not * or one origin", () => {
    for (const corsOrigin of ["https://app.example.com/", "app.example.com", "https://a.example.com,https://b.example.com", "'*'"]) {
      expect(() => synthesize({ senderEmail: "noreply@example.com", corsOrigin }), corsOrigin).toThrow(/corsOrigin/);
    }
  });

  it("mails every alarm to the alarm address", () => {
    synth.template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "ops@example.com" });
    const alarms = resourcesOfType(synth.json, "AWS::CloudWatch::Alarm");
    expect(alarms.length).toBe(1 + 2 * allNames.length);
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toHaveLength(1);
  });

  it("rejects a malformed layer ARN before synthesizing", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", libreOfficeLayerArn: "libreoffice" })).toThrow(/not a layer version ARN/);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// On AWS the signing keys are in KMS by default; only sign may kms:Sign with them, no
// function can export anything, and -c signingKey=file keeps the key-file path.
let kms: Synthesized;
let file: Synthesized;
beforeAll(() => {
  kms = synthesize({ senderEmail: "noreply@example.com" });
  // Only its template is read: the code needs no bundling.
  file = synthesize({ senderEmail: "noreply@example.com", signingKey: "file" }, { bundle: false });
}, 2 * SYNTH_TIMEOUT_MS);

const allNames = [...routes.map((route) => route.name), "authorizer", "fallback"];
type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown; Principal?: unknown };
const props = (synth: Synthesized, name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const env = (synth: Synthesized, name: string) => (props(synth, name).Environment as { Variables: Record<string, unknown> }).Variables;
const roleOf = (synth: Synthesized, name: string) => (props(synth, name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
const actions = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

/** roleStatements are every statement of every IAM policy attached to the function's role. */
function roleStatements(synth: Synthesized, name: string): Statement[] {
  const role = roleOf(synth, name);
  return resourcesOfType(synth.json, "AWS::IAM::Policy")
    .filter(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === role))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}
const kmsActions = (synth: Synthesized, name: string) =>
  roleStatements(synth, name).flatMap((statement) => actions(statement).filter((a) => a.startsWith("kms:")));
const keys = (synth: Synthesized) => resourcesOfType(synth.json, "AWS::KMS::Key");
/** nameOf is the function name of a logical id (SignFunction: sign). */
const nameOf = (id: string) =>
  id
    .replace(/Function$/, "")
    .replace(/([a-z])([A-Z])/g, "$1-$2")
    .toLowerCase();

describe("KMS signing keys (the default)", () => {
  it("creates two RSA_3072 SIGN_VERIFY keys, retained, without rotation (KMS does not rotate asymmetric keys)", () => {
    const created = keys(kms);
    expect(created.map(([id]) => id.replace(/[0-9A-F]{8}$/, "")).sort()).toEqual(["SigningKeysRootKey", "SigningKeysSigningKey"]);
    for (const [, key] of created) {
      expect(key.Properties).toMatchObject({ KeySpec: "RSA_3072", KeyUsage: "SIGN_VERIFY" });
      expect(key.Properties.EnableKeyRotation ?? false).toBe(false);
      expect(key.DeletionPolicy).toBe("RetainExceptOnCreate");
    }
  });

  it("each key policy denies kms:Sign to every principal but the sign function's role (and, on the root key, the CRL issuer's)", () => {
    const arn = (name: string) => ({ "Fn::GetAtt": [roleOf(kms, name), "Arn"] });
    for (const [id, key] of keys(kms)) {
      const statements = (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement;
      const deny = statements.filter((statement) => statement.Effect === "Deny");
      // The job worker runs sign's jobs through sign's handler (infra/jobs.ts): it signs as sign does.
      const allowed = id.startsWith("SigningKeysRootKey") ? [arn("sign"), arn("jobs-worker"), arn("crl-issuer")] : [arn("sign"), arn("jobs-worker")];
      expect(deny, id).toEqual([
        expect.objectContaining({ Action: "kms:Sign", Principal: { AWS: "*" }, Condition: { StringNotEquals: { "aws:PrincipalArn": allowed } } }),
      ]);
      // The only Allow is the account's administration (CDK's default key policy), which IAM policies build on.
      expect(statements.filter((statement) => statement.Effect === "Allow").length, id).toBe(1);
    }
  });

  it("no function behind a public route but sign has kms:Sign; on the root key only sign and the CRL issuer; verify-crl gets no KMS call; no other KMS call anywhere", () => {
    const keyId = (prefix: string) => keys(kms).find(([id]) => id.startsWith(prefix))![0];
    const signedKeys = (name: string) =>
      roleStatements(kms, name)
        .filter((candidate) => actions(candidate).includes("kms:Sign"))
        .flatMap((statement) => [statement.Resource].flat() as Array<{ "Fn::GetAtt": [string, string] }>)
        .map((resource) => resource["Fn::GetAtt"][0])
        .sort();
    for (const name of allNames) {
      if (name === "sign") {
        expect(kmsActions(kms, name).sort(), name).toEqual(["kms:GetPublicKey", "kms:Sign"]);
      } else {
        expect(kmsActions(kms, name), name).toEqual([]);
      }
    }
    expect(signedKeys("sign")).toEqual([keyId("SigningKeysRootKey"), keyId("SigningKeysSigningKey")].sort());
    expect(kmsActions(kms, "crl-issuer").sort()).toEqual(["kms:GetPublicKey", "kms:Sign"]);
    expect(signedKeys("crl-issuer")).toEqual([keyId("SigningKeysRootKey")]);
    // Every function in the template: only these two hold kms:Sign.
    const holders = resourcesOfType(kms.json, "AWS::Lambda::Function")
      .map(([id]) => id)
      .filter((id) => functionLogicalId(nameOf(id)) === id && kmsActions(kms, nameOf(id)).includes("kms:Sign"));
    // ... and the job worker, behind no route, which runs sign's jobs (infra/jobs.ts).
    expect(kmsActions(kms, "jobs-worker").sort()).toEqual(["kms:GetPublicKey", "kms:Sign"]);
    expect(holders.sort()).toEqual([functionLogicalId("crl-issuer"), functionLogicalId("sign"), functionLogicalId("jobs-worker")].sort());
  });

  it("the CRL issuer is behind no route: only its daily EventBridge rule may invoke it", () => {
    const issuer = functionLogicalId("crl-issuer");
    const permissions = resourcesOfType(kms.json, "AWS::Lambda::Permission").filter(([, permission]) =>
      JSON.stringify(permission.Properties.FunctionName).includes(issuer),
    );
    expect(permissions.map(([, permission]) => permission.Properties.Principal)).toEqual(["events.amazonaws.com"]);
    const methods = resourcesOfType(kms.json, "AWS::ApiGateway::Method");
    expect(methods.filter(([, method]) => JSON.stringify(method.Properties.Integration ?? {}).includes(issuer))).toEqual([]);
    const rules = resourcesOfType(kms.json, "AWS::Events::Rule").filter(([id]) => id.startsWith("CrlIssuerSchedule"));
    expect(rules).toHaveLength(1);
    expect(rules[0]![1].Properties).toMatchObject({
      ScheduleExpression: "rate(1 day)",
      State: "ENABLED",
      Targets: [expect.objectContaining({ Arn: { "Fn::GetAtt": [issuer, "Arn"] }, RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 21600 } })],
    });
    expect(env(kms, "crl-issuer")).toMatchObject({ SIGNET_KMS_ROOT_KEY_ID: expect.anything(), SIGNET_IDENTITY_BUCKET: expect.anything() });
    expect(env(kms, "crl-issuer").SIGNET_KMS_KEY_ID).toBeUndefined();
    // With a key file there is no root key in KMS, hence no issuer.
    expect(file.json.Resources[issuer]).toBeUndefined();
  });

  it("tells sign both keys and verify-key where the key lives; no other function knows them", () => {
    const [signingId] = keys(kms).find(([id]) => id.startsWith("SigningKeysSigningKey"))!;
    const [rootId] = keys(kms).find(([id]) => id.startsWith("SigningKeysRootKey"))!;
    expect(env(kms, "sign")).toMatchObject({
      SIGNET_KMS_KEY_ID: { "Fn::GetAtt": [signingId, "Arn"] },
      SIGNET_KMS_ROOT_KEY_ID: { "Fn::GetAtt": [rootId, "Arn"] },
    });
    expect(env(kms, "verify-key")).toMatchObject({ SIGNET_KMS_KEY_ID: { "Fn::GetAtt": [signingId, "Arn"] } });
    expect(env(kms, "verify-key").SIGNET_KMS_ROOT_KEY_ID).toBeUndefined();
    // verify-crl knows Signet's root is in KMS (to serve its kept CRL), may not use it, and never learns the signing key.
    expect(env(kms, "verify-crl")).toMatchObject({ SIGNET_KMS_ROOT_KEY_ID: { "Fn::GetAtt": [rootId, "Arn"] } });
    expect(env(kms, "verify-crl").SIGNET_KMS_KEY_ID).toBeUndefined();
    // The certificate Signet issues names the API's CRL URL: sign knows the API's address.
    expect(JSON.stringify(env(kms, "sign").SIGNET_PUBLIC_URL)).toMatch(/execute-api.*\/prod/);
    for (const name of allNames.filter((candidate) => !["sign", "verify-key"].includes(candidate))) {
      expect(Object.keys(env(kms, name)), name).not.toContain("SIGNET_KMS_KEY_ID");
    }
  });
});

describe("-c signingKey=file", () => {
  it("creates no KMS key and grants no KMS call: sign reads the key file from the identity bucket as before", () => {
    expect(keys(file)).toEqual([]);
    for (const name of allNames) expect(kmsActions(file, name), name).toEqual([]);
    expect(Object.keys(env(file, "sign"))).toContain("SIGNET_IDENTITY_BUCKET");
    expect(Object.keys(env(file, "sign"))).not.toContain("SIGNET_KMS_KEY_ID");
  });

  it("refuses another value", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", signingKey: "hsm" })).toThrow(/signingKey must be kms or file/);
  });
});

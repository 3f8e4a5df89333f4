import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";
import { minimumAccountQuota, reservableFunctions, reservedConcurrencyFromContext, UNRESERVED_MINIMUM } from "../../infra/concurrency.ts";
import { libreOfficeBaseImage, sofficeInImage } from "../../infra/base-image.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, synthesize, testBaseImageDigest, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// "safe to run on a personal AWS account": the guard rails of the stack, checked on the
// default deployment and on one with every optional guard rail asked for. Synthesized once each.
let plain: Synthesized;
let guarded: Synthesized;
beforeAll(() => {
  plain = synthesize({ senderEmail: "noreply@example.com" });
  guarded = synthesize({
    senderEmail: "noreply@example.com",
    alarmEmail: "ops@example.com",
    budgetUsd: "20",
    reservedConcurrency: "3",
    verifyConcurrency: "7",
    identityP12PasswordParameter: "/signet/identity-p12-password",
  });
}, 2 * SYNTH_TIMEOUT_MS);

const fnProps = (synth: Synthesized, name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;

describe("reserved concurrency (opt-in)", () => {
  const reservations = (synth: Synthesized) =>
    Object.fromEntries(
      resourcesOfType(synth.json, "AWS::Lambda::Function")
        .filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined)
        .map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions as number]),
    );

  it("reserves nothing by default, so the stack creates on an account whose concurrency quota is 10", () => {
    expect(reservations(plain)).toEqual({});
  });

  it("takes one number for the expensive functions and a per-function override from context", () => {
    expect(reservations(guarded)).toEqual({
      [functionLogicalId("sign")]: 3,
      [functionLogicalId("annotate")]: 3,
      [functionLogicalId("convert")]: 3,
      [functionLogicalId("verify")]: 7,
    });
    // 16 reserved needs a quota of 116: Lambda keeps 100 unreserved.
    expect(minimumAccountQuota(reservedConcurrencyFromContext((name) => ({ reservedConcurrency: "3", verifyConcurrency: "7" })[name]))).toBe(
      16 + UNRESERVED_MINIMUM,
    );
  });

  it("reads the context rules: unset or off reserves nothing, an override alone reserves one function", () => {
    const read = (context: Record<string, string>) => reservedConcurrencyFromContext((name) => context[name]);
    expect(read({})).toEqual({});
    for (const off of ["off", "none", "false", "0"]) expect(read({ reservedConcurrency: off })).toEqual({});
    expect(read({ reservedConcurrency: "5" })).toEqual(Object.fromEntries(reservableFunctions.map((name) => [name, 5])));
    expect(read({ convertConcurrency: "2" })).toEqual({ convert: 2 });
    expect(minimumAccountQuota(read({}))).toBe(0);
  });

  it("refuses counts that are not whole numbers", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", signConcurrency: "2.5" })).toThrow(/signConcurrency must be a whole number/);
    expect(() => reservedConcurrencyFromContext((name) => (name === "reservedConcurrency" ? "many" : undefined))).toThrow(
      /reservedConcurrency must be a whole number/,
    );
  });
});

describe("budget", () => {
  it("adds no budget unless asked", () => {
    plain.template.resourceCountIs("AWS::Budgets::Budget", 0);
  });

  it("adds a monthly cost budget mailing alarmEmail at 80 % actual and 100 % forecast", () => {
    guarded.template.resourceCountIs("AWS::Budgets::Budget", 1);
    guarded.template.hasResourceProperties("AWS::Budgets::Budget", {
      Budget: { BudgetType: "COST", TimeUnit: "MONTHLY", BudgetLimit: { Amount: 20, Unit: "USD" } },
      NotificationsWithSubscribers: [
        { Notification: { NotificationType: "ACTUAL", Threshold: 80 }, Subscribers: [{ SubscriptionType: "EMAIL", Address: "ops@example.com" }] },
        { Notification: { NotificationType: "FORECASTED", Threshold: 100 }, Subscribers: [{ SubscriptionType: "EMAIL", Address: "ops@example.com" }] },
      ],
    });
  });

  it("refuses a budget without an address to mail", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", budgetUsd: "20" })).toThrow(/budgetUsd needs alarmEmail/);
  });
});

describe("the identity.p12 password (item 3)", () => {
  const env = (synth: Synthesized, name: string) => (fnProps(synth, name).Environment as { Variables: Record<string, unknown> }).Variables ?? {};

  it("refuses the password itself as context, naming the SecureString way instead", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", identityP12Password: "hunter2-do-not-ship" })).toThrow(
      /identityP12Password is no longer accepted.*SecureString.*identityP12PasswordParameter/s,
    );
  });

  it("gives sign (and the job worker, which signs as sign does) only the parameter's name and ssm:GetParameter on that parameter; no function gets a password variable", () => {
    const signers = ["sign", "jobs-worker"];
    for (const name of signers) expect(env(guarded, name).SIGNET_IDENTITY_P12_PASSWORD_PARAMETER, name).toBe("/signet/identity-p12-password");
    for (const [id, fn] of resourcesOfType(guarded.json, "AWS::Lambda::Function")) {
      const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      expect(Object.keys(variables), id).not.toContain("SIGNET_IDENTITY_P12_PASSWORD");
      if (!signers.map(functionLogicalId).includes(id)) expect(Object.keys(variables), id).not.toContain("SIGNET_IDENTITY_P12_PASSWORD_PARAMETER");
    }
    const ssmStatements = resourcesOfType(guarded.json, "AWS::IAM::Policy").flatMap(([, policy]) =>
      (policy.Properties.PolicyDocument as { Statement: Array<{ Action: unknown; Resource: unknown }> }).Statement.filter((s) =>
        JSON.stringify(s.Action).includes("ssm:"),
      ).map((s) => ({ s, roles: policy.Properties.Roles })),
    );
    // One statement per signing role: sign's and the job worker's, nobody else's.
    expect(ssmStatements).toHaveLength(2);
    for (const { s } of ssmStatements) {
      expect(s.Action).toBe("ssm:GetParameter");
      expect(JSON.stringify(s.Resource)).toContain(":parameter/signet/identity-p12-password");
    }
    const holders = ssmStatements.map(({ roles }) => JSON.stringify(roles));
    expect(holders.filter((roles) => roles.includes("SignFunction"))).toHaveLength(1);
    expect(holders.filter((roles) => roles.includes("JobsWorkerFunction"))).toHaveLength(1);
  });

  it("leaves no password-looking value anywhere in cdk.out", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) {
          if (!entry.startsWith("asset.") && entry !== ".signet-image") walk(path);
        } else files.push(path);
      }
    };
    walk(guarded.outdir);
    expect(files.some((file) => file.endsWith("tree.json"))).toBe(true);
    for (const file of files) expect(readFileSync(file, "utf8"), file).not.toMatch(/SIGNET_IDENTITY_P12_PASSWORD"/);
  });
});

describe("the LibreOffice image (item 4)", () => {
  const dockerfile = () => readFileSync(join(repoRoot, "layers", "libreoffice", "Dockerfile"), "utf8");

  it("builds FROM the base tag pinned by the digest from context (BASE_REF <tag>@<digest>)", () => {
    const froms = dockerfile()
      .split("\n")
      .filter((line) => /^FROM\s/i.test(line));
    expect(froms).toEqual(["FROM ${BASE_REF}"]);
    const assets = JSON.parse(readFileSync(join(plain.outdir, `${plain.stackName}.assets.json`), "utf8")) as {
      dockerImages: Record<string, { source: { dockerBuildArgs?: Record<string, string> } }>;
    };
    const images = Object.values(assets.dockerImages);
    expect(images).toHaveLength(1);
    expect(images[0]!.source.dockerBuildArgs).toEqual({ BASE_REF: `${libreOfficeBaseImage}@${testBaseImageDigest}` });
    // One image, two functions from it: the office function and the jobs' office function.
    const fromImage = Object.entries(plain.json.Resources).filter(([, r]) => r.Type === "AWS::Lambda::Function" && r.Properties.PackageType === "Image");
    expect(fromImage.map(([id]) => id).sort()).toEqual([functionLogicalId("office"), functionLogicalId("office-jobs")].sort());
  });

  it("needs the digest resolved before the stack is made: createApp alone refuses a tag it would have to look up (test/infra/base-image.test.ts has the rest)", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", libreOfficeBaseImageDigest: "" })).toThrow(
      /has no digest in context: resolveBaseImage looks it up/,
    );
  });

  it("names no LibreOffice version or path but the base tag: the Dockerfile finds soffice in the base and links it where the stack points", () => {
    const text = dockerfile();
    expect(text).toMatch(/^ARG BASE_REF$/m); // no default: the tag lives in infra/base-image.ts only
    expect(text).toContain(`ln -s "$soffice" ${sofficeInImage}`);
    expect(text).toMatch(/command -v libreoffice/);
    expect(fnProps(plain, "office").Environment).toMatchObject({ Variables: { SIGNET_SOFFICE: sofficeInImage } });
    for (const file of ["layers/libreoffice/Dockerfile", "infra/signet-stack.ts", "infra/app.ts"]) {
      expect(readFileSync(join(repoRoot, file), "utf8"), file).not.toMatch(/libreoffice\d|lambda-libreoffice-base:\d/i);
    }
    // The documents may name the tag, but only the current one, and no versioned path.
    for (const file of ["layers/libreoffice/README.md", "docs/aws.md"]) {
      const text = readFileSync(join(repoRoot, file), "utf8");
      expect(text, file).not.toMatch(/\/opt\/libreoffice\d|libreoffice\d+\.\d/i);
      for (const [tag] of text.matchAll(/public\.ecr\.aws\/shelf\/lambda-libreoffice-base:[\w.-]+/g)) expect(tag, file).toBe(libreOfficeBaseImage);
    }
    // Every RUN that starts LibreOffice stops at the first failing command.
    const runs = text.split(/^RUN /m).slice(1);
    for (const run of runs.filter((step) => step.includes("soffice"))) expect(run).toMatch(/^set -eux?\b/);
  });

  it("fails the build when the base's LibreOffice lacks Calc or Impress, with the export filters convert uses", () => {
    const check = dockerfile()
      .split(/^RUN /m)
      .find((step) => step.includes("calc_pdf_Export"));
    expect(check).toBeDefined();
    expect(check).toMatch(/^set -eux?\b/);
    for (const part of [
      "Text - txt - csv (StarCalc):44,34,76,1",
      "--convert-to pdf:calc_pdf_Export sheet.csv",
      "--convert-to pdf:impress_pdf_Export deck.fodp",
    ]) {
      expect(check).toContain(part);
    }
    expect(check).toMatch(/head -c 5 sheet\.pdf \| grep -q '%PDF-'/);
    expect(check).toMatch(/head -c 5 deck\.pdf \| grep -q '%PDF-'/);
  });

  it("builds the x86_64 image the base is published for, on any build machine", () => {
    expect(libreOfficeBaseImage).toMatch(/-x86_64$/);
    const assets = JSON.parse(readFileSync(join(plain.outdir, `${plain.stackName}.assets.json`), "utf8")) as {
      dockerImages: Record<string, { source: { platform?: string } }>;
    };
    for (const image of Object.values(assets.dockerImages)) expect(image.source.platform).toBe("linux/amd64");
    expect(fnProps(plain, "office").Architectures).toEqual(["x86_64"]);
  });

  it("fails the build when fc-cache is missing, and checks that the warm path's python can import uno", () => {
    const text = dockerfile();
    expect(text).not.toMatch(/if command -v fc-cache[^\n]*then fc-cache -f; fi/);
    expect(text).toMatch(/if ! command -v fc-cache >\/dev\/null; then [^\n]*exit 1; fi/);
    expect(text).toMatch(/-c "import uno"/);
    expect(text).toMatch(/echo "no python in the image can import uno[^\n]*exit 1/);
  });
});

describe("SES (item 6)", () => {
  const sesStatements = (synth: Synthesized) =>
    resourcesOfType(synth.json, "AWS::IAM::Policy")
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement)
      .filter((s) => s.Action === "ses:SendEmail");

  it("assumes the SES sandbox unless told otherwise, so a first deploy can mail a verified recipient", () => {
    expect(sesStatements(plain).filter((s) => JSON.stringify(s.Resource).includes(":identity/*")).length).toBeGreaterThan(0);
  });

  it(
    "drops the sandbox permission with sesSandbox=false, and refuses other values",
    () => {
      const production = synthesize({ senderEmail: "noreply@example.com", sesSandbox: "false" });
      expect(sesStatements(production).filter((s) => JSON.stringify(s.Resource).includes(":identity/*"))).toEqual([]);
      expect(sesStatements(production).length).toBeGreaterThan(0);
      expect(() => synthesize({ senderEmail: "noreply@example.com", sesSandbox: "yes" })).toThrow(/sesSandbox must be true or false/);
    },
    SYNTH_TIMEOUT_MS,
  );

  it("sends through a configuration set with reputation metrics and the suppression list, the identity's default", () => {
    const [setId] = resourcesOfType(plain.json, "AWS::SES::ConfigurationSet")[0]!;
    plain.template.hasResourceProperties("AWS::SES::ConfigurationSet", {
      ReputationOptions: { ReputationMetricsEnabled: true },
      SuppressionOptions: { SuppressedReasons: ["BOUNCE", "COMPLAINT"] },
    });
    plain.template.hasResourceProperties("AWS::SES::EmailIdentity", { ConfigurationSetAttributes: { ConfigurationSetName: { Ref: setId } } });
  });

  it("alarms on the configuration set's bounce and complaint rates below SES's review levels", () => {
    const [setId] = resourcesOfType(guarded.json, "AWS::SES::ConfigurationSet")[0]!;
    const alarms = resourcesOfType(guarded.json, "AWS::CloudWatch::Alarm")
      .map(([, a]) => a.Properties)
      .filter((a) => a.Namespace === "AWS/SES");
    const byMetric = Object.fromEntries(alarms.map((a) => [a.MetricName as string, a]));
    expect(Object.keys(byMetric).sort()).toEqual(["Reputation.BounceRate", "Reputation.ComplaintRate"]);
    expect(byMetric["Reputation.BounceRate"]!.Threshold as number).toBeLessThan(0.05);
    expect(byMetric["Reputation.ComplaintRate"]!.Threshold as number).toBeLessThan(0.001);
    for (const alarm of alarms) {
      expect(alarm.Dimensions).toEqual([{ Name: "ses:configuration-set", Value: { Ref: setId } }]);
      expect(alarm.AlarmActions).toHaveLength(1);
    }
  });
});

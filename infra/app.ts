import { existsSync, readdirSync } from "node:fs";
import { App } from "aws-cdk-lib";
import { reservedConcurrencyFromContext } from "./concurrency.ts";
import { SignetStack, type SignetStackProps } from "./signet-stack.ts";

/** stackPropsFromContext reads the deployment choices from `-c name=value` and checks them. */
export function stackPropsFromContext(app: App): SignetStackProps {
  const context = (name: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(name);
    return value === undefined || value === null || value === "" ? undefined : String(value);
  };
  const senderEmail = context("senderEmail");
  if (!senderEmail) {
    throw new Error(
      "Context senderEmail is missing: the address Signet sends verification codes from. " +
        "Run: npx cdk deploy -c senderEmail=noreply@your-domain.com (SES mails that address a verification link).",
    );
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(senderEmail)) throw new Error(`Context senderEmail "${senderEmail}" is not an e-mail address.`);
  const number = (name: string, fallback: number): number => {
    const raw = context(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`Context ${name} must be a positive number, got "${raw}".`);
    return value;
  };
  for (const removed of ["libreOfficeLayerArn", "sofficePath"]) {
    if (context(removed) !== undefined) {
      throw new Error(
        `Context ${removed} is no longer accepted: the LibreOffice layer mode was removed (no maintained layer provides LibreOffice for Node.js 22). ` +
          "LibreOffice runs from the container image (layers/libreoffice/Dockerfile); drop the option.",
      );
    }
  }
  const extraFontsDir = context("extraFontsDir");
  if (extraFontsDir && !(existsSync(extraFontsDir) && readdirSync(extraFontsDir).some((name) => name.toLowerCase().endsWith(".ttf")))) {
    throw new Error(
      `Context extraFontsDir "${extraFontsDir}" is not a folder with .ttf files: give the folder of the fonts the certificate page should add ` +
        "(for CJK Extension B, Debian's fonts-hanazono: -c extraFontsDir=/usr/share/fonts/truetype/hanazono).",
    );
  }
  const tsaUrl = context("tsaUrl");
  if (tsaUrl && !/^https?:\/\//.test(tsaUrl)) throw new Error(`Context tsaUrl "${tsaUrl}" must be an http(s) URL.`);
  // One origin, as SIGNET_CORS_ORIGIN takes it locally; it also lands inside single quotes in the
  // gateway responses' header mappings, so nothing but an origin or * is accepted.
  const corsOrigin = context("corsOrigin") ?? "*";
  if (corsOrigin !== "*" && !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(corsOrigin)) {
    throw new Error(`Context corsOrigin "${corsOrigin}" must be * or one origin such as https://app.example.com (scheme, host, optional port; no path).`);
  }
  // Reserved concurrency is opt-in: new accounts with a quota of 10 cannot reserve any (infra/concurrency.ts).
  const reservedConcurrency = reservedConcurrencyFromContext(context);
  if (context("identityP12Password") !== undefined) {
    throw new Error(
      "Context identityP12Password is no longer accepted: it would put the password in plain text in the template, cdk.out and the Lambda environment. " +
        "Store it as an SSM SecureString (aws ssm put-parameter --type SecureString --name /signet/identity-p12-password --value '...') " +
        "and deploy with -c identityP12PasswordParameter=/signet/identity-p12-password.",
    );
  }
  const passwordParameter = context("identityP12PasswordParameter");
  if (passwordParameter && !/^\/?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(passwordParameter)) {
    throw new Error(`Context identityP12PasswordParameter "${passwordParameter}" is not an SSM parameter name (such as /signet/identity-p12-password).`);
  }
  // New accounts are in the SES sandbox: the safe default is true, so the first deploy can mail a
  // verified recipient. Production access granted: -c sesSandbox=false.
  const sandboxSetting = (context("sesSandbox") ?? "true").toLowerCase();
  if (sandboxSetting !== "true" && sandboxSetting !== "false") throw new Error(`Context sesSandbox must be true or false, got "${context("sesSandbox")}".`);
  const sesSandbox = sandboxSetting === "true";
  const signingKey = context("signingKey") ?? "kms";
  if (signingKey !== "kms" && signingKey !== "file") throw new Error(`Context signingKey must be kms or file, got "${signingKey}".`);
  const existingSetting = (context("existingSenderIdentity") ?? "false").toLowerCase();
  if (existingSetting !== "true" && existingSetting !== "false") {
    throw new Error(`Context existingSenderIdentity must be true or false, got "${context("existingSenderIdentity")}".`);
  }
  const alarmEmail = context("alarmEmail");
  if (alarmEmail && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(alarmEmail)) throw new Error(`Context alarmEmail "${alarmEmail}" is not an e-mail address.`);
  const budgetRaw = context("budgetUsd");
  const budgetUsd = budgetRaw === undefined ? undefined : number("budgetUsd", 0);
  if (budgetUsd !== undefined && !alarmEmail) {
    throw new Error("Context budgetUsd needs alarmEmail: the budget alarm is mailed there. Add -c alarmEmail=you@example.com.");
  }
  const optional = <K extends string>(key: K, value: string | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));
  return {
    senderEmail,
    libreOfficeBaseImageDigest: context("libreOfficeBaseImageDigest") ?? "",
    ...optional("libreOfficeBaseImageReviewed", context("libreOfficeBaseImageReviewed")),
    ...optional("tsaUrl", tsaUrl),
    ...optional("extraFontsDir", extraFontsDir),
    ...optional("identityP12PasswordParameter", passwordParameter),
    ...optional("alarmEmail", alarmEmail),
    ...(budgetUsd === undefined ? {} : { budgetUsd }),
    reservedConcurrency,
    ...optional("registerAllow", context("registerAllow")),
    ...(context("keyRatePerMinute") ? { keyRatePerMinute: Math.floor(number("keyRatePerMinute", 60)) } : {}),
    corsOrigin,
    sesSandbox,
    signingKey,
    existingSenderIdentity: existingSetting === "true",
    throttle: { rate: number("throttleRate", 50), burst: number("throttleBurst", 100) },
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  };
}

/** createApp builds the CDK app with its one stack, "Signet" (cdk.out/Signet.template.json). */
export function createApp(app: App = new App()): { app: App; stack: SignetStack } {
  const stack = new SignetStack(app, app.node.tryGetContext("stackName") ?? "Signet", stackPropsFromContext(app));
  return { app, stack };
}

// Run as the CDK app (cdk.json "app"), not when a test imports this file.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  createApp();
}

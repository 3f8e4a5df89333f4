import { App } from "aws-cdk-lib";
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
  const layerArn = context("libreOfficeLayerArn");
  if (layerArn && !/^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/.test(layerArn)) {
    throw new Error(`Context libreOfficeLayerArn "${layerArn}" is not a layer version ARN (arn:aws:lambda:<region>:<account>:layer:<name>:<version>).`);
  }
  const tsaUrl = context("tsaUrl");
  if (tsaUrl && !/^https?:\/\//.test(tsaUrl)) throw new Error(`Context tsaUrl "${tsaUrl}" must be an http(s) URL.`);
  // One origin, as SIGNET_CORS_ORIGIN takes it locally; it also lands inside single quotes in the
  // gateway responses' header mappings, so nothing but an origin or * is accepted.
  const corsOrigin = context("corsOrigin") ?? "*";
  if (corsOrigin !== "*" && !/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(corsOrigin)) {
    throw new Error(`Context corsOrigin "${corsOrigin}" must be * or one origin such as https://app.example.com (scheme, host, optional port; no path).`);
  }
  const optional = <K extends string>(key: K, value: string | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));
  return {
    senderEmail,
    ...optional("libreOfficeLayerArn", layerArn),
    ...optional("sofficePath", context("sofficePath")),
    ...optional("tsaUrl", tsaUrl),
    ...optional("identityP12Password", context("identityP12Password")),
    ...optional("alarmEmail", context("alarmEmail")),
    ...optional("registerAllow", context("registerAllow")),
    ...(context("keyRatePerMinute") ? { keyRatePerMinute: Math.floor(number("keyRatePerMinute", 60)) } : {}),
    corsOrigin,
    sesSandbox: context("sesSandbox") === "true",
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

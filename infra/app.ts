import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Annotations, App, Stack } from "aws-cdk-lib";
import { BUNDLING_STACKS } from "aws-cdk-lib/cx-api";
import { BaseImagePinError, planBaseImage, shippedPin } from "./base-image.ts";
import { type BaseImageChoice, chooseBaseImage, type PinSteps, pinSteps } from "./base-image-pin.ts";
import { repoRoot } from "./bundling.ts";
import { reservedConcurrencyFromContext } from "./concurrency.ts";
import { SignetStack, type SignetStackProps } from "./signet-stack.ts";
import { webmailSenderWarning } from "./webmail-sender.ts";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** ContextError is a `-c` setting to fix: the app prints its message alone, without a stack trace. */
export class ContextError extends Error {
  override name = "ContextError";
}

/** ContextReader reads `-c name=value` settings, each checked as it is read; an empty value counts as unset. */
class ContextReader {
  constructor(private readonly app: App) {}

  /** text is a setting's value as given, or undefined when it is unset or empty. */
  text(name: string): string | undefined {
    const value: unknown = this.app.node.tryGetContext(name);
    return value === undefined || value === null || value === "" ? undefined : String(value);
  }

  /** matching is a setting that must match `pattern` when given; `what` completes "must be ...". */
  matching(name: string, pattern: RegExp, what: string): string | undefined {
    const value = this.text(name);
    if (value !== undefined && !pattern.test(value)) throw new ContextError(`Context ${name} "${value}" ${what}.`);
    return value;
  }

  /** positive is a positive number, `fallback` when unset. */
  positive(name: string, fallback: number): number {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new ContextError(`Context ${name} must be a positive number, got "${raw}".`);
    return value;
  }

  /** flag is true or false (any case), `fallback` when unset. */
  flag(name: string, fallback: boolean): boolean {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    const value = raw.toLowerCase();
    if (value !== "true" && value !== "false") throw new ContextError(`Context ${name} must be true or false, got "${raw}".`);
    return value === "true";
  }

  /** refuse fails when a setting that is no longer accepted is given, saying what to do instead. */
  refuse(name: string, why: string): void {
    if (this.text(name) !== undefined) throw new ContextError(`Context ${name} is no longer accepted: ${why}`);
  }
}

/** senderEmailFrom reads the one required setting: the address codes are sent from. */
function senderEmailFrom(context: ContextReader): string {
  const senderEmail = context.matching("senderEmail", EMAIL, "is not an e-mail address");
  if (senderEmail) return senderEmail;
  throw new ContextError(
    "Context senderEmail is missing: the address Signet sends verification codes from. " +
      "Run: npx cdk deploy -c senderEmail=noreply@your-domain.com (SES mails that address a verification link).",
  );
}

/** refuseRemovedSettings fails on settings earlier versions took and this one must not silently ignore. */
function refuseRemovedSettings(context: ContextReader): void {
  for (const removed of ["libreOfficeLayerArn", "sofficePath"]) {
    context.refuse(
      removed,
      "the LibreOffice layer mode was removed (no maintained layer provides LibreOffice for Node.js 22). " +
        "LibreOffice runs from the container image (layers/libreoffice/Dockerfile); drop the option.",
    );
  }
  context.refuse(
    "identityP12Password",
    "it would put the password in plain text in the template, cdk.out and the Lambda environment. " +
      "Store it as an SSM SecureString (aws ssm put-parameter --type SecureString --name /signet/identity-p12-password --value '...') " +
      "and deploy with -c identityP12PasswordParameter=/signet/identity-p12-password.",
  );
}

/** extraFontsDirFrom reads extraFontsDir: a folder with .ttf files on the deploying machine. */
function extraFontsDirFrom(context: ContextReader): string | undefined {
  const extraFontsDir = context.text("extraFontsDir");
  if (extraFontsDir && !(existsSync(extraFontsDir) && readdirSync(extraFontsDir).some((name) => name.toLowerCase().endsWith(".ttf")))) {
    throw new ContextError(
      `Context extraFontsDir "${extraFontsDir}" is not a folder with .ttf files: give the folder of the fonts the certificate page should add ` +
        "(for CJK Extension B, Debian's fonts-hanazono: -c extraFontsDir=/usr/share/fonts/truetype/hanazono).",
    );
  }
  return extraFontsDir;
}

/** alertsFrom reads where alarms go and the monthly budget, which needs an address to mail. */
function alertsFrom(context: ContextReader): Pick<SignetStackProps, "alarmEmail" | "budgetUsd"> {
  const alarmEmail = context.matching("alarmEmail", EMAIL, "is not an e-mail address");
  const budgetUsd = context.text("budgetUsd") === undefined ? undefined : context.positive("budgetUsd", 0);
  if (budgetUsd !== undefined && !alarmEmail) {
    throw new ContextError("Context budgetUsd needs alarmEmail: the budget alarm is mailed there. Add -c alarmEmail=you@example.com.");
  }
  return { ...optional("alarmEmail", alarmEmail), ...(budgetUsd === undefined ? {} : { budgetUsd }) };
}

/** optional is `{ key: value }`, or nothing when the value is unset (exactOptionalPropertyTypes). */
function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** stackIdFrom is the stack's id and name: "Signet" unless -c stackName says otherwise. */
function stackIdFrom(app: App): string {
  return new ContextReader(app).text("stackName") ?? "Signet";
}

/**
 * buildsImages is Stack.bundlingRequired for the stack about to be made, asked of a throwaway
 * stack with the same context: false under `cdk ls` and `cdk destroy`, whose CLI passes an empty
 * aws:cdk:bundling-stacks, true under synth, diff and deploy.
 */
function buildsImages(app: App): boolean {
  const probe = new App({ autoSynth: false, outdir: app.outdir, context: { [BUNDLING_STACKS]: app.node.tryGetContext(BUNDLING_STACKS) ?? ["**"] } });
  return new Stack(probe, stackIdFrom(app)).bundlingRequired;
}

/** baseImagePlan reads what decides the base image from context (infra/base-image.ts planBaseImage). */
function baseImagePlan(app: App, today: Date) {
  const context = new ContextReader(app);
  return planBaseImage({
    digest: context.text("libreOfficeBaseImageDigest"),
    reviewed: context.text("libreOfficeBaseImageReviewed"),
    requirePinned: context.flag("requirePinnedBaseImage", false),
    building: buildsImages(app),
    shipped: shippedPin,
    today,
  });
}

/**
 * baseImageFromContext is the base image when context settles it without the network (a pin,
 * or nothing built); a tag still to be looked up is an error here: the CDK app resolves it first
 * (resolveBaseImage).
 */
export function baseImageFromContext(app: App, today = new Date()): BaseImageChoice {
  const plan = baseImagePlan(app, today);
  if (plan.kind === "ref") return { ref: plan.ref, warnings: plan.warnings };
  throw new BaseImagePinError(`The base image ${plan.tag} has no digest in context: resolveBaseImage looks it up.`);
}

/** resolveBaseImage is the base image as the CDK app builds it: from context, else looked up now and recorded (infra/base-image-pin.ts). */
export function resolveBaseImage(app: App, steps: PinSteps, today = new Date()): Promise<BaseImageChoice> {
  return chooseBaseImage(baseImagePlan(app, today), steps);
}

/** stackPropsFromContext reads the deployment choices from `-c name=value` and checks them (all but the base image: baseImageFromContext). */
export function stackPropsFromContext(app: App): Omit<SignetStackProps, "libreOfficeBaseImage"> {
  const context = new ContextReader(app);
  const senderEmail = senderEmailFrom(context);
  refuseRemovedSettings(context);
  // One origin, as SIGNET_CORS_ORIGIN takes it locally; it also lands inside single quotes in the
  // gateway responses' header mappings, so nothing but an origin or * is accepted.
  const corsOrigin =
    context.matching(
      "corsOrigin",
      /^(\*|https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?)$/,
      "must be * or one origin such as https://app.example.com (scheme, host, optional port; no path)",
    ) ?? "*";
  const signingKey = context.text("signingKey") ?? "kms";
  if (signingKey !== "kms" && signingKey !== "file") throw new ContextError(`Context signingKey must be kms or file, got "${signingKey}".`);
  return {
    senderEmail,
    ...optional("tsaUrl", context.matching("tsaUrl", /^https?:\/\//, "must be an http(s) URL")),
    ...optional("extraFontsDir", extraFontsDirFrom(context)),
    ...optional(
      "identityP12PasswordParameter",
      context.matching(
        "identityP12PasswordParameter",
        /^\/?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/,
        "is not an SSM parameter name (such as /signet/identity-p12-password)",
      ),
    ),
    ...alertsFrom(context),
    // Reserved concurrency is opt-in: new accounts with a quota of 10 cannot reserve any (infra/concurrency.ts).
    reservedConcurrency: reservedConcurrencyFromContext((name) => context.text(name)),
    ...optional("registerAllow", context.text("registerAllow")),
    ...(context.text("keyRatePerMinute") ? { keyRatePerMinute: Math.floor(context.positive("keyRatePerMinute", 60)) } : {}),
    corsOrigin,
    // New accounts are in the SES sandbox: the safe default is true, so the first deploy can mail a
    // verified recipient. Production access granted: -c sesSandbox=false.
    sesSandbox: context.flag("sesSandbox", true),
    signingKey,
    existingSenderIdentity: context.flag("existingSenderIdentity", false),
    throttle: { rate: context.positive("throttleRate", 50), burst: context.positive("throttleBurst", 100) },
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  };
}

/**
 * createApp builds the CDK app with its one stack, "Signet" (cdk.out/Signet.template.json), the
 * office image FROM `baseImage`; its warnings, and a sender that will fail DMARC, become warning
 * annotations the synth output shows.
 */
export function createApp(app: App = new App(), baseImage: BaseImageChoice = baseImageFromContext(app)): { app: App; stack: SignetStack } {
  const props = { ...stackPropsFromContext(app), libreOfficeBaseImage: baseImage.ref };
  const stack = new SignetStack(app, stackIdFrom(app), props);
  for (const warning of baseImage.warnings) Annotations.of(stack).addWarningV2("signet:base-image", warning);
  const webmail = webmailSenderWarning(props.senderEmail);
  if (webmail) Annotations.of(stack).addWarningV2("signet:sender-dmarc", webmail);
  return { app, stack };
}

/** main is the CDK app (cdk.json "app"): a setting to fix is one line on stderr, not a stack trace. */
async function main(): Promise<void> {
  const app = new App();
  try {
    // The settings first: a missing sender stops the app before any look-up.
    stackPropsFromContext(app);
    const steps = pinSteps({ cdkJsonFile: join(repoRoot, "cdk.json"), docker: process.env.CDK_DOCKER || "docker", today: new Date() });
    createApp(app, await resolveBaseImage(app, steps));
  } catch (error) {
    if (!(error instanceof ContextError || error instanceof BaseImagePinError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}

// Run as the CDK app, not when a test imports this file.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  await main();
}

/**
 * Pinning the LibreOffice base image: look its tag's digest up and record it in cdk.json. Shared
 * by the CDK app (the first synth without a pin) and `npm run image:pin`, so both write the same
 * two context entries (libreOfficeBaseImageDigest, libreOfficeBaseImageReviewed).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { type BaseImagePlan, libreOfficeBaseImage, pinCommand, pinnedRef, reviewedLine } from "./base-image.ts";
import { lookUpDigest, RegistryUnreachableError } from "./registry-digest.ts";

/** LOOK_UP_TIMEOUT_MS bounds the registry look-up at synth: a slow network costs at most this much, then the build goes on unpinned. */
const LOOK_UP_TIMEOUT_MS = 15_000;

/** PinSteps are the outside steps of pinning: the look-up (registry, else Docker) and the write into cdk.json. */
export interface PinSteps {
  lookUp(tag: string): Promise<string>;
  record(digest: string): void;
}

/** BaseImageChoice is what the image is built FROM, with the warnings the synth output should show. */
export interface BaseImageChoice {
  ref: string;
  warnings: string[];
}

/** recordPin writes the digest and "<today> <tag>" into a cdk.json's context, keeping everything else as it was. */
export function recordPin(cdkJsonFile: string, digest: string, today: Date): void {
  const cdkJson = JSON.parse(readFileSync(cdkJsonFile, "utf8")) as { context?: Record<string, unknown> };
  const context = { ...cdkJson.context };
  context.libreOfficeBaseImageDigest = digest;
  context.libreOfficeBaseImageReviewed = reviewedLine(today);
  writeFileSync(cdkJsonFile, `${JSON.stringify({ ...cdkJson, context }, null, 2)}\n`);
}

/** pinSteps are the real steps: the registry (then `docker`'s imagetools) within the time-out, and cdk.json. */
export function pinSteps(options: { cdkJsonFile: string; docker: string; today: Date; timeoutMs?: number }): PinSteps {
  return {
    lookUp: (tag) => lookUpDigest(tag, { timeoutMs: options.timeoutMs ?? LOOK_UP_TIMEOUT_MS, docker: options.docker }),
    record: (digest) => recordPin(options.cdkJsonFile, digest, options.today),
  };
}

/**
 * chooseBaseImage carries a plan out: a reference as planned, or the tag looked up now (FROM
 * tag@digest, recorded in cdk.json so later deploys build the same bytes); when the look-up fails,
 * FROM the bare tag with a warning (the deploy pulls it from the same registry, so it needs the
 * network anyway).
 */
export async function chooseBaseImage(plan: BaseImagePlan, steps: PinSteps): Promise<BaseImageChoice> {
  if (plan.kind === "ref") return { ref: plan.ref, warnings: plan.warnings };
  let digest: string;
  try {
    digest = await steps.lookUp(plan.tag);
  } catch (error) {
    const why = error instanceof RegistryUnreachableError ? "the registry is unreachable from here" : "the registry gave no digest";
    return {
      ref: plan.tag,
      warnings: [
        `The LibreOffice base image is not pinned and ${why} (${(error as Error).message}): it will be resolved at deploy, ` +
          `when Docker builds FROM ${plan.tag} as the tag stands then. Run \`${pinCommand}\` once the registry is reachable to pin it in cdk.json.`,
      ],
    };
  }
  steps.record(digest);
  return {
    ref: pinnedRef(digest),
    warnings: [
      `The LibreOffice base image ${libreOfficeBaseImage} was resolved at synth to ${digest} and recorded in cdk.json ` +
        "(libreOfficeBaseImageDigest, libreOfficeBaseImageReviewed), so later deploys build the same bytes: review it and commit cdk.json.",
    ],
  };
}

// npm run image:pin
// Looks up the digest the LibreOffice base image's tag (infra/base-image.ts) points at now and
// writes it into cdk.json's context with today's date and the tag (libreOfficeBaseImageDigest,
// libreOfficeBaseImageReviewed), so every deploy builds FROM the same bytes without -c. Asks the
// registry's HTTP API (no container tool needed), else `$CDK_DOCKER buildx imagetools inspect`
// (docker by default); the same code the CDK app runs when it finds no pin (infra/base-image-pin.ts).
// Review the image (its release notes, `docker buildx imagetools inspect <tag>@<digest>`) before
// committing.
import { join } from "node:path";
import { libreOfficeBaseImage, reviewedLine } from "../infra/base-image.ts";
import { pinSteps } from "../infra/base-image-pin.ts";
import { repoRoot } from "../infra/bundling.ts";

const today = new Date();
const steps = pinSteps({ cdkJsonFile: join(repoRoot, "cdk.json"), docker: process.env.CDK_DOCKER || "docker", today });
try {
  const digest = await steps.lookUp(libreOfficeBaseImage);
  steps.record(digest);
  process.stdout.write(`cdk.json: libreOfficeBaseImageDigest ${digest} (${reviewedLine(today)}). Review it, then commit cdk.json.\n`);
} catch (error) {
  process.stderr.write(`Could not look up the digest of ${libreOfficeBaseImage}: ${(error as Error).message}\n`);
  process.exitCode = 1;
}

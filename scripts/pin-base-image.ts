// npm run image:pin
// Looks up the digest the LibreOffice base image's tag (infra/base-image.ts) points at now and
// writes it into cdk.json's context with today's date and the tag (libreOfficeBaseImageDigest,
// libreOfficeBaseImageReviewed), so every deploy builds FROM the same bytes without -c. Needs
// Docker with buildx (the lookup only reads the registry; nothing is pulled). Review the image
// (its release notes, `docker buildx imagetools inspect <tag>@<digest>`) before committing.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { libreOfficeBaseImage } from "../infra/base-image.ts";
import { repoRoot } from "../infra/bundling.ts";

let inspected: string;
try {
  inspected = execFileSync("docker", ["buildx", "imagetools", "inspect", libreOfficeBaseImage], { encoding: "utf8" });
} catch (error) {
  process.stderr.write(
    `docker buildx imagetools inspect ${libreOfficeBaseImage} failed (is Docker with buildx installed, and the registry reachable?): ${(error as Error).message}\n`,
  );
  process.exit(1);
}
const digest = /^Digest:\s+(sha256:[0-9a-f]{64})$/m.exec(inspected)?.[1];
if (!digest) {
  process.stderr.write(`no "Digest:" line in the answer of docker buildx imagetools inspect:\n${inspected}\n`);
  process.exit(1);
}
const file = join(repoRoot, "cdk.json");
const cdkJson = JSON.parse(readFileSync(file, "utf8")) as { context: Record<string, unknown> };
const reviewed = `${new Date().toISOString().slice(0, 10)} ${libreOfficeBaseImage}`;
cdkJson.context = { libreOfficeBaseImageDigest: digest, libreOfficeBaseImageReviewed: reviewed, ...cdkJson.context };
cdkJson.context.libreOfficeBaseImageDigest = digest;
cdkJson.context.libreOfficeBaseImageReviewed = reviewed;
writeFileSync(file, `${JSON.stringify(cdkJson, null, 2)}\n`);
process.stdout.write(`cdk.json: libreOfficeBaseImageDigest ${digest} (${reviewed}). Review it, then commit cdk.json.\n`);

// The team's shared folder (../shared beside the repository: pyHanko, the corpus of real Word
// files). A clone elsewhere (CI may clone anywhere) finds it through SIGNET_SHARED_DIR or the
// workplace's fixed location; without it the tests that need it fail loudly, naming what to set.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const candidates = [process.env.SIGNET_SHARED_DIR, fileURLToPath(new URL("../../../shared", import.meta.url)), "/work/shared"].filter((dir): dir is string =>
  Boolean(dir),
);

/** sharedPath is a path inside the shared folder; it throws when no candidate folder holds it. */
export function sharedPath(relative: string): string {
  for (const dir of candidates) {
    const path = join(dir, relative);
    if (existsSync(path)) return path;
  }
  throw new Error(`shared/${relative} not found in ${candidates.join(", ")}: set SIGNET_SHARED_DIR to the shared folder`);
}

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** scratchDir makes a temporary folder for one test file. */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `signet-${prefix}-`));
}

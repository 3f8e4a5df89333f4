// Vitest's global setup: one folder per run where synthesize (test/helpers/infra-synth.ts) keeps
// each context's cloud assembly, so the infra test files share one synthesis of the same context.
// Made empty before the first test file (a run never reads an earlier run's assembly), removed after the last.
import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { scratchDir } from "#test/helpers/scratch.ts";

/** setup makes the run's synthesis folder and tells the test files where it is. */
export default function setup(project: TestProject): () => void {
  const dir = scratchDir("synth-cache");
  project.provide("synthCacheDir", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

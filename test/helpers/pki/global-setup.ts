// Vitest's global setup: the shared test PKI (test/helpers/pki/testing-pki.ts) is built once per
// run, before any test file, and removed after the last.
import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { buildPki } from "#test/helpers/pki/build.ts";
import { testingPki } from "#test/helpers/pki/testing-pki.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

/** setup builds the test PKI and tells the test files where it is. */
export default function setup(project: TestProject): () => void {
  const dir = scratchDir("test-pki");
  buildPki(testingPki, dir);
  project.provide("testPkiDir", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

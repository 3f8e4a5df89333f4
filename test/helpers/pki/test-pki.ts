// Where a test file finds the shared test PKI (test/helpers/pki/testing-pki.ts).
import { inject } from "vitest";
import { BuiltPki, buildPki } from "#test/helpers/pki/build.ts";
import { testingPki } from "#test/helpers/pki/testing-pki.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** The folder global-setup.ts built the shared test PKI into. */
    testPkiDir: string;
  }
}

let built: BuiltPki | undefined;

/**
 * testPki is the shared test PKI: the folder the global setup built, or, outside vitest (the
 * benches), one built on first use in this process.
 */
export function testPki(): BuiltPki {
  if (built) return built;
  const dir = providedDir();
  built = dir ? new BuiltPki(testingPki, dir) : buildPki(testingPki, scratchDir("test-pki"));
  return built;
}

function providedDir(): string | undefined {
  try {
    return inject("testPkiDir");
  } catch {
    return undefined;
  }
}

// pyHanko, the independent PAdES validator the tests judge signatures with, found when a test first
// needs it (never at import): SIGNET_PYHANKO (a folder holding the pyhanko and
// pyhanko_certvalidator packages, run by Debian's python3 with its python3-* dependencies), else
// the project's virtual environment .tools/pyhanko that `node scripts/setup.mjs --test` (npm test's
// pretest) installs from PyPI. Missing, it fails the test that needs it with one line saying how to
// get it.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** PYHANKO_VENV is the project-local virtual environment setup installs pyHanko into (gitignored). */
const PYHANKO_VENV = join(root, ".tools", "pyhanko");

const HOW_TO_GET =
  "run `node scripts/setup.mjs --test` (installs it from PyPI into .tools/pyhanko) or set SIGNET_PYHANKO to a folder holding pyhanko and pyhanko_certvalidator";

/** PyhankoRuntime is how to run a script that imports pyHanko: the interpreter and its environment. */
interface PyhankoRuntime {
  python: string;
  env: NodeJS.ProcessEnv;
  /** Where pyHanko comes from, for messages. */
  source: string;
}

let runtime: PyhankoRuntime | undefined;

/** pyhankoRuntime finds pyHanko once; it throws one line saying how to get it when there is none. */
function pyhankoRuntime(): PyhankoRuntime {
  if (runtime) return runtime;
  const named = process.env.SIGNET_PYHANKO;
  let found: PyhankoRuntime;
  if (named) {
    if (!existsSync(join(named, "pyhanko")) || !existsSync(join(named, "pyhanko_certvalidator"))) {
      throw new Error(`pyHanko: SIGNET_PYHANKO=${named} holds no pyhanko and pyhanko_certvalidator folders; ${HOW_TO_GET}`);
    }
    const pythonPath = [named, process.env.PYTHONPATH].filter(Boolean).join(":");
    // Debian's python3, where setup installs pyHanko's dependencies (python3-asn1crypto, ...).
    const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    found = { python, env: { ...process.env, PYTHONPATH: pythonPath }, source: `SIGNET_PYHANKO=${named}` };
  } else {
    found = { python: join(PYHANKO_VENV, "bin", "python"), env: process.env, source: ".tools/pyhanko" };
    if (!existsSync(found.python)) throw new Error(`pyHanko is not installed: ${HOW_TO_GET}`);
  }
  const probe = spawnSync(found.python, ["-c", "import pyhanko, pyhanko_certvalidator"], { env: found.env, encoding: "utf8" });
  if (probe.status !== 0) {
    const reason = probe.error?.message ?? probe.stderr.trim().split("\n").at(-1);
    throw new Error(`pyHanko from ${found.source} does not import (${reason}); ${HOW_TO_GET}`);
  }
  runtime = found;
  return runtime;
}

/**
 * runPyhanko runs one of the helper scripts beside this file (pyhanko-*.py) with pyHanko available;
 * it returns the finished process, whatever its exit status. With `timeoutMs`, a run that takes
 * longer is killed and returned with signal SIGTERM (pyHanko 0.20.1 never ends on some hostile files).
 */
export function runPyhanko(script: string, args: string[], options: { timeoutMs?: number } = {}): SpawnSyncReturns<string> {
  const { python, env } = pyhankoRuntime();
  const run = spawnSync(python, [fileURLToPath(new URL(script, import.meta.url)), ...args], {
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
  });
  if (run.error && !(options.timeoutMs && run.signal === "SIGTERM")) throw run.error;
  return run;
}

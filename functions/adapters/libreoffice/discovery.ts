// Discovery: where LibreOffice is, which python drives it, what isolation this system offers, and
// the work folder every run of it uses. Done once per converter life, on first use.
import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { logger } from "#adapters/powertools-logger.ts";
import { notInstalled, notIsolated } from "#adapters/libreoffice/errors.ts";
import { detectIsolation, type Isolation, type IsolationMode } from "#adapters/libreoffice/isolation.ts";
import { planStart } from "#adapters/libreoffice/plan.ts";
import type { ParentGuard } from "#adapters/libreoffice/process-group.ts";
import { locateSoffice, pythonCandidates, sofficeEnvironment } from "#adapters/libreoffice/profile.ts";
import { unoDriverPath } from "#adapters/libreoffice/uno-driver.ts";
import { createWorkDir, slotJob, slotTmp, sweepStaleWorkDirs } from "#adapters/libreoffice/work-dir.ts";

/** A python probe is a few imports: far below this unless the system is stuck. */
const PYTHON_PROBE_TIMEOUT_MS = 15_000;

/** DiscoveryOptions are the converter options discovery reads (see LibreOfficeConverterOptions). */
export interface DiscoveryOptions {
  soffice?: string | undefined;
  python?: string | undefined;
  workDir?: string | undefined;
  tempDir?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  mode: "warm" | "oneshot";
  concurrency: number;
  isolation: IsolationMode;
  memoryLimitMb: number;
}

/** OfficeSetup is what discovery found: soffice, the work folder, the isolation, and the pythons of the warm path and the parent guard. */
export interface OfficeSetup {
  soffice: string;
  workDir: string;
  home: string;
  sourceEnv: NodeJS.ProcessEnv;
  /** The python and driver for the warm path, or undefined when only one-shot is possible. */
  warm?: { python: string; driverPath: string };
  /** The parent guard one-shot runs go through, when a python is at hand. */
  guard?: ParentGuard;
  /** Network namespace and memory limit every LibreOffice run gets. */
  isolation: Isolation;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function pythonRuns(python: string, env: Record<string, string>, code: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", code], { env, timeout: PYTHON_PROBE_TIMEOUT_MS }, (error) => resolve(!error));
  });
}

/** findWarmPython is the python that can drive LibreOffice over UNO, when the warm path is wanted and possible. */
async function findWarmPython(options: DiscoveryOptions, candidates: string[], env: Record<string, string>): Promise<OfficeSetup["warm"]> {
  const driverPath = unoDriverPath();
  if (options.mode !== "warm" || !driverPath) return undefined;
  // The bundled python (official builds) is taken when present without a probe: the driver's
  // start imports uno anyway, and a probe would delay every cold start.
  for (const [i, candidate] of candidates.entries()) {
    const bundled = !options.python && i === 0 && (await isExecutable(candidate));
    if (bundled || (await pythonRuns(candidate, env, "import uno"))) return { python: candidate, driverPath };
  }
  return undefined;
}

/** findGuard is the parent guard one-shot runs go through: always a real python (the configured one may be a test's stand-in driver). */
async function findGuard(options: DiscoveryOptions, soffice: string, warm: OfficeSetup["warm"], env: Record<string, string>): Promise<ParentGuard | undefined> {
  if (warm && !options.python) return { python: warm.python, script: warm.driverPath };
  const driverPath = unoDriverPath();
  if (!driverPath) return undefined;
  for (const candidate of pythonCandidates(soffice)) {
    if (await pythonRuns(candidate, env, "import os, subprocess, threading")) return { python: candidate, script: driverPath };
  }
  return undefined;
}

/**
 * discoverOffice locates LibreOffice, makes the work folder (jobs, home, one TMPDIR and one job
 * folder per slot), detects the isolation once (said once in the log) and finds the pythons of
 * the warm path and of the parent guard. NOT_INSTALLED without soffice; refused when isolation is
 * required and absent (planStart).
 */
export async function discoverOffice(options: DiscoveryOptions): Promise<OfficeSetup> {
  const sourceEnv = options.env ?? process.env;
  const soffice = await locateSoffice(options.soffice, sourceEnv);
  if (!soffice) throw notInstalled();
  if (!options.workDir) await sweepStaleWorkDirs(options.tempDir);
  const workDir = options.workDir ?? (await createWorkDir(options.tempDir));
  const home = join(workDir, "home");
  await mkdir(home, { recursive: true, mode: 0o700 });
  for (let i = 0; i < options.concurrency; i++) {
    await mkdir(slotTmp(workDir, i), { recursive: true, mode: 0o700 });
    await mkdir(slotJob(workDir, i), { recursive: true, mode: 0o700 });
  }
  const env = sofficeEnvironment(home, sourceEnv);
  const isolation = await detectIsolation(options.isolation, options.memoryLimitMb > 0 ? options.memoryLimitMb * 1024 * 1024 : undefined, env, soffice);
  const start = planStart({ mode: options.isolation, files: isolation.files });
  if (start === "refuse") throw notIsolated(isolation.summary);
  if (start === "warn") logger.warn(isolation.summary);
  else logger.info(isolation.summary);
  const warm = await findWarmPython(options, options.python ? [options.python] : pythonCandidates(soffice), env);
  const guard = await findGuard(options, soffice, warm, env);
  if (options.mode === "warm" && !warm) logger.warn("python3-uno or uno-driver.py not found: LibreOffice runs one-shot per conversion (slower)");
  return { soffice, workDir, home, sourceEnv, isolation, ...(warm ? { warm } : {}), ...(guard ? { guard } : {}) };
}

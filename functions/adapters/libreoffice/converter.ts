import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { logger } from "#adapters/powertools-logger.ts";
import { conversionTimeout, notInstalled, unreadable } from "#adapters/libreoffice/errors.ts";
import { crashesUnoLoad, filtersOf, freshOutput, readOutput, writeInput, type JobFiles } from "#adapters/libreoffice/job-files.ts";
import { runOneShot, SOFFICE_FLAGS } from "#adapters/libreoffice/one-shot.ts";
import type { ParentGuard } from "#adapters/libreoffice/process-group.ts";
import { locateSoffice, makeProfileTemplate, pythonCandidates, seedProfile, sofficeEnvironment } from "#adapters/libreoffice/profile.ts";
import { SlotPool, type Slot } from "#adapters/libreoffice/slot-pool.ts";
import { unoDriverPath } from "#adapters/libreoffice/uno-driver.ts";
import { WarmOffice, WarmStartError, type WarmJob } from "#adapters/libreoffice/warm-office.ts";
import { createWorkDir, sweepStaleWorkDirs } from "#adapters/libreoffice/work-dir.ts";
import type { ConversionRequest, Converter } from "#domain/conversion/converter.ts";
import { isSignetError } from "#domain/shared/errors.ts";

/** LibreOfficeConverterOptions configure a converter; the defaults come from config.conversion. */
export interface LibreOfficeConverterOptions {
  /** soffice to run; located (PATH, Lambda layer folders) when unset. */
  soffice?: string;
  /** Hard limit for one conversion (LibreOffice start included); the process group is killed after it. */
  timeoutMs: number;
  /** Conversions running at once (one LibreOffice each). */
  concurrency: number;
  /** Conversions that may wait for a free slot; more are refused with RATE_LIMIT_ERROR. */
  queueLength: number;
  /** "warm": keep one LibreOffice per slot running between jobs; "oneshot": start one per job. */
  mode: "warm" | "oneshot";
  /** A warm LibreOffice is replaced after this many conversions (bounds leaks). */
  maxConversionsPerProcess: number;
  /** Python that can `import uno`; tried from pythonCandidates() when unset. */
  python?: string;
  /** Folder for profiles and job files; a fresh private one under the OS temp folder when unset. */
  workDir?: string;
  /**
   * A complete LibreOffice profile every instance's profile is copied from (it starts faster
   * than on an empty one). Made there after the first conversion when missing or stale; unset:
   * every profile starts empty.
   */
  profileTemplate?: string;
  /** Environment the allow-list is taken from. */
  env?: NodeJS.ProcessEnv;
}

/** LibreOfficeConverter is the Converter port plus the lifecycle the process owner needs. */
export interface LibreOfficeConverter extends Converter {
  /** warm locates LibreOffice and starts every warm instance now rather than on first use. */
  warm(): Promise<void>;
  /**
   * startEarly starts one warm instance (then the others) without a warm-up conversion, and
   * resolves when it is ready or after maxWaitMs, whichever comes first; it never rejects (a
   * failure is logged and the first conversion tries again). For a Lambda's init phase.
   */
  startEarly(maxWaitMs: number): Promise<void>;
  /** close waits for running conversions, stops every LibreOffice and removes the work folder. */
  close(): Promise<void>;
  /** state reports the effective mode and the load, for logs and tests. */
  state(): { mode: "warm" | "oneshot" | "unknown"; running: number; queued: number };
}

const defaults: LibreOfficeConverterOptions = {
  timeoutMs: 60_000,
  concurrency: 2,
  queueLength: 16,
  mode: "warm",
  maxConversionsPerProcess: 200,
};

interface Setup {
  soffice: string;
  workDir: string;
  home: string;
  sourceEnv: NodeJS.ProcessEnv;
  /** The python and driver for the warm path, or undefined when only one-shot is possible. */
  warm?: { python: string; driverPath: string };
  /** The parent guard one-shot runs go through, when a python is at hand. */
  guard?: ParentGuard;
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
    execFile(python, ["-c", code], { env, timeout: 15_000 }, (error) => resolve(!error));
  });
}

/** slotDir is a slot's own folder; its tmp/ is LibreOffice's TMPDIR, emptied after every kill. */
function slotTmp(workDir: string, index: number): string {
  return join(workDir, "slots", String(index), "tmp");
}

/**
 * createLibreOfficeConverter composes the parts: a slot pool (queue, one process per slot), the
 * warm runner (WarmOffice over uno-driver.py) and the one-shot runner (`soffice --convert-to`).
 * It does nothing at creation: LibreOffice is located and started on first use (or on warm()).
 * Every job gets a private folder; every LibreOffice its own seeded profile and TMPDIR, an
 * allow-listed environment and a hard time-out that kills its whole process group, after which
 * its temporary files are removed.
 */
export function createLibreOfficeConverter(options: Partial<LibreOfficeConverterOptions> = {}): LibreOfficeConverter {
  const settings: LibreOfficeConverterOptions = { ...defaults, ...options };
  let setup: Promise<Setup> | undefined;
  let warmUsable = settings.mode === "warm";
  let startFailures = 0;
  const tag = randomBytes(4).toString("hex");
  // Documents that crashed a warm LibreOffice (SHA-256 of input and options); they go one-shot at once.
  const crashers = new Set<string>();

  const pool = new SlotPool<WarmOffice>({
    size: settings.concurrency,
    queueLength: settings.queueLength,
    maxJobsPerProcess: settings.maxConversionsPerProcess,
    create: (slot) => createWarm(slot),
    onStopped: (slot) => clearTmp(slot.index),
  });
  let prepared: Setup | undefined;
  let early: Promise<void> | undefined;
  let templating: Promise<unknown> | undefined;

  /** makeTemplate makes the profile template once, after LibreOffice proved to work here (not before, so it never delays a first conversion). */
  function makeTemplate(env: Setup): void {
    if (!settings.profileTemplate) return;
    templating ??= makeProfileTemplate(env.soffice, settings.profileTemplate, sofficeEnvironment(env.home, env.sourceEnv), 30_000, env.guard).then((made) => {
      if (!made) logger.warn("the LibreOffice profile template could not be made; profiles start empty", { template: settings.profileTemplate });
    });
  }
  const killAll = () => pool.stopNow();

  function slotEnv(env: Setup, index: number): Record<string, string> {
    return sofficeEnvironment(env.home, env.sourceEnv, { TMPDIR: slotTmp(env.workDir, index) });
  }

  async function clearTmp(index: number): Promise<void> {
    if (!prepared) return;
    const dir = slotTmp(prepared.workDir, index);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }

  async function prepare(): Promise<Setup> {
    const sourceEnv = settings.env ?? process.env;
    const soffice = await locateSoffice(settings.soffice, sourceEnv);
    if (!soffice) throw notInstalled();
    if (!settings.workDir) await sweepStaleWorkDirs();
    const workDir = settings.workDir ?? (await createWorkDir());
    const home = join(workDir, "home");
    await mkdir(join(workDir, "jobs"), { recursive: true, mode: 0o700 });
    await mkdir(home, { recursive: true, mode: 0o700 });
    for (let i = 0; i < settings.concurrency; i++) await mkdir(slotTmp(workDir, i), { recursive: true, mode: 0o700 });
    let warm: Setup["warm"];
    let guard: ParentGuard | undefined;
    const driverPath = unoDriverPath();
    const candidates = settings.python ? [settings.python] : pythonCandidates(soffice);
    const env = sofficeEnvironment(home, sourceEnv);
    if (settings.mode === "warm" && driverPath) {
      // The bundled python (official builds) is taken when present without a probe: the driver's
      // start imports uno anyway, and a probe would delay every cold start.
      for (const [i, candidate] of candidates.entries()) {
        const bundled = !settings.python && i === 0 && (await isExecutable(candidate));
        if (bundled || (await pythonRuns(candidate, env, "import uno"))) {
          warm = { python: candidate, driverPath };
          break;
        }
      }
    }
    // The guard's python is always a real one (the configured python may be a test's stand-in driver).
    if (warm && !settings.python) guard = { python: warm.python, script: warm.driverPath };
    if (!guard && driverPath) {
      for (const candidate of pythonCandidates(soffice)) {
        if (await pythonRuns(candidate, env, "import os, subprocess, threading")) {
          guard = { python: candidate, script: driverPath };
          break;
        }
      }
    }
    if (settings.mode === "warm" && !warm) logger.warn("python3-uno or uno-driver.py not found: LibreOffice runs one-shot per conversion (slower)");
    warmUsable = warm !== undefined;
    process.on("exit", killAll);
    prepared = { soffice, workDir, home, sourceEnv, ...(warm ? { warm } : {}), ...(guard ? { guard } : {}) };
    return prepared;
  }

  function ready(): Promise<Setup> {
    setup ??= prepare().catch((error: unknown) => {
      setup = undefined;
      throw error;
    });
    return setup;
  }

  function createWarm(slot: Slot<WarmOffice>): WarmOffice {
    const env = prepared!;
    const profile = seedProfile(join(env.workDir, "profiles", `warm-${slot.index}`), settings.profileTemplate);
    return new WarmOffice({
      python: env.warm!.python,
      driverPath: env.warm!.driverPath,
      argv: [env.soffice, `-env:UserInstallation=${profile}`, ...SOFFICE_FLAGS],
      pipeName: `signet-${process.pid}-${tag}-${slot.index}-${slot.generation}`,
      env: slotEnv(env, slot.index),
      cwd: env.home,
    });
  }

  /**
   * oneShot converts with `soffice --convert-to` in the slot. `profile` "warm" borrows the slot's
   * warm profile (already initialised, so LibreOffice starts as fast as a plain soffice with its
   * profile): only while the slot's warm instance is stopped.
   */
  async function oneShot(env: Setup, slot: Slot<WarmOffice>, job: JobFiles, deadline: number, profileOf: "warm" | "oneshot", keepTmp = false): Promise<Buffer> {
    const profile = seedProfile(join(env.workDir, "profiles", `${profileOf}-${slot.index}`), settings.profileTemplate);
    try {
      const run = { soffice: env.soffice, profile, env: slotEnv(env, slot.index), cwd: env.home, timeoutMs: settings.timeoutMs };
      return await runOneShot({ ...run, ...(env.guard ? { guard: env.guard } : {}) }, job, deadline);
    } finally {
      // The process group is gone: whatever it left in its TMPDIR goes too (unless the slot's warm
      // instance, which keeps its session folder there, took the job over).
      if (!keepTmp) await clearTmp(slot.index);
    }
  }

  /**
   * handOver converts a document known to crash a load over UNO on the slot's warm instance all
   * the same: a `soffice --convert-to` client with the warm profile passes the job to the running
   * instance over LibreOffice's own pipe, where it runs in the main thread like a one-shot's (the
   * driver vetoes the termination that follows). Falls back to a real one-shot when that fails.
   */
  async function handOver(env: Setup, slot: Slot<WarmOffice>, job: JobFiles, deadline: number): Promise<{ output: Buffer; stopped: boolean }> {
    const office = await pool.process(slot, deadline).catch(() => undefined);
    if (office) {
      try {
        return { output: await oneShot(env, slot, job, deadline, "warm", true), stopped: false };
      } catch (error) {
        await pool.discard(slot);
        if (isSignetError(error) && error.code === "CONVERSION_TIMEOUT") throw error;
        logger.warn("warm LibreOffice could not take a document over; converting one-shot", { error: String(error) });
        job = await freshOutput(job, "handover-retry");
      }
    }
    await pool.discard(slot);
    return { output: await oneShot(env, slot, job, deadline, "warm"), stopped: true };
  }

  /**
   * warmRun converts on the slot's warm LibreOffice, or answers "crashed" (it died or failed the
   * export on this document: retry one-shot) or "fallback" (it does not start: one-shot instead).
   */
  async function warmRun(slot: Slot<WarmOffice>, job: JobFiles, deadline: number): Promise<Buffer | "crashed" | "fallback"> {
    let office: WarmOffice;
    try {
      office = await pool.process(slot, deadline);
    } catch (error) {
      if (error instanceof WarmStartError && error.kind === "timeout") throw conversionTimeout(settings.timeoutMs);
      if (++startFailures >= 2) {
        warmUsable = false;
        logger.warn("warm LibreOffice does not start; using one-shot conversions from now on", { error: String(error) });
      }
      return "fallback";
    }
    const warmJob: WarmJob = {
      input: pathToFileURL(job.inputPath).href,
      output: pathToFileURL(job.outputPath).href,
      ...filtersOf(job),
    };
    const outcome = await office.run(warmJob, deadline);
    if (outcome.ok) {
      startFailures = 0;
      return (await readOutput(job)) ?? Promise.reject(unreadable(job.from));
    }
    switch (outcome.kind) {
      case "timeout":
        // Killed at the deadline: gone, with its temporary files, before the slot takes a job.
        await pool.discard(slot);
        throw conversionTimeout(settings.timeoutMs);
      case "load":
        throw unreadable(job.from);
      default:
        // A crash or a failed export: LibreOffice is replaced for the next job and this one is
        // retried once with a fresh one-shot process, which survives documents the warm one does not.
        logger.warn("warm LibreOffice failed during a conversion; retrying one-shot", { kind: outcome.kind, error: outcome.error });
        // Gone before the retry starts, so the slot never holds two LibreOffice processes.
        await pool.discard(slot);
        return "crashed";
    }
  }

  /**
   * convertInSlot runs one job in its slot. Warm first; a document that crashes the warm instance
   * is retried at once one-shot on the slot's (initialised) warm profile, and remembered (SHA-256)
   * so that next time it is handed over to the warm instance as a `--convert-to` job (handOver);
   * documents known to crash a load over UNO (crashesUnoLoad) are handed over on first sight.
   * Answers whether the slot's warm instance was
   * stopped for the job, so that the caller restarts it once the answer is out.
   */
  async function convertInSlot(request: ConversionRequest, slot: Slot<WarmOffice>): Promise<{ output: Buffer; stopped: boolean }> {
    const env = await ready();
    const deadline = Date.now() + settings.timeoutMs;
    const jobDir = await mkdtemp(join(env.workDir, "jobs", "job-"));
    // Hashed only when there is something to look up or to remember (a 25 MB upload takes ~40 ms).
    const digest = () =>
      createHash("sha256")
        .update(request.bytes)
        .update(`${request.from}>${request.to}:${request.pdfa === true}`)
        .digest("hex");
    try {
      let job = await writeInput(request, jobDir);
      if (!warmUsable || !env.warm) return { output: await oneShot(env, slot, job, deadline, "oneshot"), stopped: false };
      if ((crashers.size > 0 && crashers.has(digest())) || crashesUnoLoad(request)) return await handOver(env, slot, job, deadline);
      const output = await warmRun(slot, job, deadline);
      if (Buffer.isBuffer(output)) return { output, stopped: false };
      // A failed warm attempt can leave a partial output; the retry writes into a fresh folder.
      job = await freshOutput(job, "retry");
      if (output === "crashed") remember(digest());
      return { output: await oneShot(env, slot, job, deadline, output === "crashed" ? "warm" : "oneshot"), stopped: output === "crashed" };
    } finally {
      await rm(jobDir, { recursive: true, force: true });
    }
  }

  function remember(digest: string): void {
    if (crashers.size >= 256) crashers.delete(crashers.values().next().value!);
    crashers.add(digest);
  }

  const self: LibreOfficeConverter = {
    async convert(request) {
      const env = await ready();
      const { output, stopped } = await pool.run((slot) => convertInSlot(request, slot));
      // The warm instance stopped for a crashing document comes back now, not in the next request.
      if (stopped && warmUsable) void pool.refill(Date.now() + settings.timeoutMs).catch(() => undefined);
      makeTemplate(env);
      return output;
    },

    async warm() {
      const env = await ready();
      if (!warmUsable || !env.warm) return;
      // A tiny HTML document per slot brings each LibreOffice up and through one conversion.
      await Promise.all(Array.from({ length: settings.concurrency }, () => self.convert({ bytes: Buffer.from("<p>warm-up</p>"), from: "html", to: "pdf" })));
    },

    async startEarly(maxWaitMs) {
      early ??= (async () => {
        const env = await ready();
        if (!warmUsable || !env.warm) return;
        const deadline = Date.now() + settings.timeoutMs;
        // One first: a first request needs one, and two starting at once would share the CPU.
        await pool.refill(deadline);
        for (let i = 1; i < settings.concurrency; i++) void pool.refill(Date.now() + settings.timeoutMs).catch(() => undefined);
      })().catch((error: unknown) => logger.warn("LibreOffice could not be started early; the first conversion starts it", { error: String(error) }));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([early, new Promise((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
      clearTimeout(timer);
    },

    async close() {
      await pool.close();
      // A template being made is waited for (its soffice quits by itself, or is killed at its time-out).
      await templating;
      templating = undefined;
      const env = await setup?.catch(() => undefined);
      setup = undefined;
      prepared = undefined;
      warmUsable = settings.mode === "warm";
      startFailures = 0;
      crashers.clear();
      early = undefined;
      process.off("exit", killAll);
      if (env && !settings.workDir) await rm(env.workDir, { recursive: true, force: true });
    },

    state() {
      const mode = setup === undefined ? "unknown" : warmUsable ? "warm" : "oneshot";
      return { mode, ...pool.load() };
    },
  };
  return self;
}

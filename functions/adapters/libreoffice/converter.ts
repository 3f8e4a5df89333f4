import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { logger } from "#adapters/powertools-logger.ts";
import { conversionTimeout, notInstalled, notIsolated, unreadable } from "#adapters/libreoffice/errors.ts";
import { confinement, detectIsolation, type Confinement, type Isolation, type IsolationMode } from "#adapters/libreoffice/isolation.ts";
import { crashesUnoLoad, filtersOf, freshOutput, readOutput, writeInput, type JobFiles } from "#adapters/libreoffice/job-files.ts";
import { runOneShot, SOFFICE_FLAGS } from "#adapters/libreoffice/one-shot.ts";
import { killMarked, type ParentGuard } from "#adapters/libreoffice/process-group.ts";
import { locateSoffice, makeProfileTemplate, pythonCandidates, seedProfile, sofficeEnvironment } from "#adapters/libreoffice/profile.ts";
import { SlotPool, type Slot } from "#adapters/libreoffice/slot-pool.ts";
import { unoDriverPath } from "#adapters/libreoffice/uno-driver.ts";
import { WarmOffice, WarmStartError, type WarmJob } from "#adapters/libreoffice/warm-office.ts";
import { createWorkDir, sweepStaleWorkDirs } from "#adapters/libreoffice/work-dir.ts";
import { type ConversionJob, type Converter, conversionJob } from "#domain/documents/converter.ts";
import { isSignetError } from "#domain/shared/errors.ts";

/** LibreOfficeConverterOptions configure a converter; functions/wiring/conversion.ts sets them from config.conversion. */
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
  /**
   * End the slot's LibreOffice after every job, with every process it left behind, its TMPDIR and
   * its profile, before the slot takes the next job: no job sees what an earlier one left (AWS).
   */
  recycle: boolean;
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
  /** LibreOffice's box: "auto" (bubblewrap sandbox, else a network namespace, as the system allows), "off", or "required" (no conversion without the sandbox). */
  isolation: IsolationMode;
  /** Address-space limit of each LibreOffice process in MB (prlimit --as), so a bomb ends in an error, not a host out of memory; 0: none. */
  memoryLimitMb: number;
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
  /** isolation reports what keeps LibreOffice off the network here (known once LibreOffice was located). */
  isolation(): Isolation | undefined;
  /** stopNow kills every LibreOffice at once, without waiting (for the process's exit hook). */
  stopNow(): void;
}

const defaults: LibreOfficeConverterOptions = {
  timeoutMs: 60_000,
  concurrency: 2,
  queueLength: 16,
  mode: "warm",
  maxConversionsPerProcess: 200,
  recycle: false,
  isolation: "auto",
  memoryLimitMb: 0,
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
  /** Network namespace and memory limit every LibreOffice run gets. */
  isolation: Isolation;
}

/** WarmCrashedError: the warm LibreOffice died or failed the export on this document; retry one-shot (on the warm profile). */
class WarmCrashedError extends Error {
  override readonly name = "WarmCrashedError";
}

/** WarmUnavailableError: the slot's warm LibreOffice does not start; convert one-shot instead. */
class WarmUnavailableError extends Error {
  override readonly name = "WarmUnavailableError";
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

/** slotTmp is a slot's LibreOffice TMPDIR (in a sandbox its /tmp), emptied after every kill. */
function slotTmp(workDir: string, index: number): string {
  return join(workDir, "slots", String(index), "tmp");
}

/**
 * slotJob is the one job folder of a slot: every job the slot runs has its files there, and only
 * there, while it runs (emptied before and after), so a warm LibreOffice's sandbox binds this one
 * folder and never sees another job's files. Never removed: the bind holds on to the folder itself.
 */
function slotJob(workDir: string, index: number): string {
  return join(workDir, "slots", String(index), "job");
}

/** emptyFolder removes what a folder holds, keeping the folder. */
async function emptyFolder(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
}

/** findWarmPython is the python that can drive LibreOffice over UNO, when the warm path is wanted and possible. */
async function findWarmPython(settings: LibreOfficeConverterOptions, candidates: string[], env: Record<string, string>): Promise<Setup["warm"]> {
  const driverPath = unoDriverPath();
  if (settings.mode !== "warm" || !driverPath) return undefined;
  // The bundled python (official builds) is taken when present without a probe: the driver's
  // start imports uno anyway, and a probe would delay every cold start.
  for (const [i, candidate] of candidates.entries()) {
    const bundled = !settings.python && i === 0 && (await isExecutable(candidate));
    if (bundled || (await pythonRuns(candidate, env, "import uno"))) return { python: candidate, driverPath };
  }
  return undefined;
}

/** findGuard is the parent guard one-shot runs go through: always a real python (the configured one may be a test's stand-in driver). */
async function findGuard(
  settings: LibreOfficeConverterOptions,
  soffice: string,
  warm: Setup["warm"],
  env: Record<string, string>,
): Promise<ParentGuard | undefined> {
  if (warm && !settings.python) return { python: warm.python, script: warm.driverPath };
  const driverPath = unoDriverPath();
  if (!driverPath) return undefined;
  for (const candidate of pythonCandidates(soffice)) {
    if (await pythonRuns(candidate, env, "import os, subprocess, threading")) return { python: candidate, script: driverPath };
  }
  return undefined;
}

/**
 * prepareOffice locates LibreOffice, makes the work folder (jobs, home, one TMPDIR per slot),
 * detects the isolation once (said once in the log) and finds the pythons of the warm path and of
 * the parent guard. NOT_INSTALLED without soffice; refused when isolation is required and absent.
 */
async function prepareOffice(settings: LibreOfficeConverterOptions): Promise<Setup> {
  const sourceEnv = settings.env ?? process.env;
  const soffice = await locateSoffice(settings.soffice, sourceEnv);
  if (!soffice) throw notInstalled();
  if (!settings.workDir) await sweepStaleWorkDirs();
  const workDir = settings.workDir ?? (await createWorkDir());
  const home = join(workDir, "home");
  await mkdir(home, { recursive: true, mode: 0o700 });
  for (let i = 0; i < settings.concurrency; i++) {
    await mkdir(slotTmp(workDir, i), { recursive: true, mode: 0o700 });
    await mkdir(slotJob(workDir, i), { recursive: true, mode: 0o700 });
  }
  const env = sofficeEnvironment(home, sourceEnv);
  const isolation = await detectIsolation(settings.isolation, settings.memoryLimitMb > 0 ? settings.memoryLimitMb * 1024 * 1024 : undefined, env, soffice);
  if (isolation.files === "none" && settings.isolation === "required") throw notIsolated(isolation.summary);
  if (isolation.files === "none") logger.warn(isolation.summary);
  else logger.info(isolation.summary);
  const warm = await findWarmPython(settings, settings.python ? [settings.python] : pythonCandidates(soffice), env);
  const guard = await findGuard(settings, soffice, warm, env);
  if (settings.mode === "warm" && !warm) logger.warn("python3-uno or uno-driver.py not found: LibreOffice runs one-shot per conversion (slower)");
  return { soffice, workDir, home, sourceEnv, isolation, ...(warm ? { warm } : {}), ...(guard ? { guard } : {}) };
}

/** CrashMemory remembers the documents that crashed a warm LibreOffice (SHA-256 of input and options, the last 256). */
class CrashMemory {
  readonly #digests = new Set<string>();

  /** digestOf hashes a request; only when there is something to look up or to remember (a 25 MB upload takes ~40 ms). */
  static digestOf(request: ConversionJob): string {
    return createHash("sha256")
      .update(request.bytes)
      .update(`${request.from}>${request.to}:${request.pdfa === true}`)
      .digest("hex");
  }

  has(request: ConversionJob): boolean {
    return this.#digests.size > 0 && this.#digests.has(CrashMemory.digestOf(request));
  }

  remember(request: ConversionJob): void {
    if (this.#digests.size >= 256) this.#digests.delete(this.#digests.values().next().value!);
    this.#digests.add(CrashMemory.digestOf(request));
  }
}

/** Run is what one life of the converter holds, from its first use to close(): close() starts a fresh one. */
class Run {
  setup: Promise<Setup> | undefined;
  prepared: Setup | undefined;
  warmUsable: boolean;
  startFailures = 0;
  readonly crashers = new CrashMemory();
  early: Promise<void> | undefined;
  templating: Promise<unknown> | undefined;

  constructor(mode: LibreOfficeConverterOptions["mode"]) {
    this.warmUsable = mode === "warm";
  }
}

/**
 * OfficeSupervisor composes the parts: a slot pool (queue, one process per slot), the warm runner
 * (WarmOffice over uno-driver.py) and the one-shot runner (`soffice --convert-to`). It does
 * nothing at creation: LibreOffice is located and started on first use (or on warm()). Every job
 * gets a private folder; every LibreOffice its own seeded profile and TMPDIR, an allow-listed
 * environment and a hard time-out that kills its whole process group, after which its temporary
 * files are removed. The warm path's failures are named errors (WarmCrashedError,
 * WarmUnavailableError) that convertInSlot turns into one one-shot retry.
 */
class OfficeSupervisor {
  readonly #settings: LibreOfficeConverterOptions;
  readonly #tag = randomBytes(4).toString("hex");
  readonly #pool: SlotPool<WarmOffice>;
  #run: Run;

  constructor(settings: LibreOfficeConverterOptions) {
    this.#settings = settings;
    this.#run = new Run(settings.mode);
    this.#pool = new SlotPool<WarmOffice>({
      size: settings.concurrency,
      queueLength: settings.queueLength,
      maxJobsPerProcess: settings.maxConversionsPerProcess,
      create: (slot) => this.#createWarm(slot),
      onStopped: (slot) => this.#clearTmp(slot.index),
    });
  }

  async convert(request: ConversionJob): Promise<Buffer> {
    const env = await this.#ready();
    const { output, stopped } = await this.#pool.run(async (slot) => {
      try {
        return await this.#convertInSlot(request, slot);
      } finally {
        // Within the slot: the next job waits until nothing of this one is left.
        if (this.#settings.recycle) await this.#recycle(slot);
      }
    });
    // The warm instance stopped for a crashing document comes back now, not in the next request
    // (recycling: the next job starts its own).
    if (stopped && this.#run.warmUsable && !this.#settings.recycle) void this.#pool.refill(Date.now() + this.#settings.timeoutMs).catch(() => undefined);
    this.#makeTemplate(env);
    return output;
  }

  async warm(): Promise<void> {
    const env = await this.#ready();
    if (!this.#run.warmUsable || !env.warm) return;
    // A tiny HTML document per slot brings each LibreOffice up and through one conversion.
    const warmUp = () => this.convert({ bytes: Buffer.from("<p>warm-up</p>"), from: "html", to: "pdf" });
    await Promise.all(Array.from({ length: this.#settings.concurrency }, warmUp));
  }

  async startEarly(maxWaitMs: number): Promise<void> {
    const run = this.#run;
    run.early ??= this.#startWarmInstances().catch((error: unknown) =>
      logger.warn("LibreOffice could not be started early; the first conversion starts it", { error: String(error) }),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([run.early, new Promise((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.#pool.close();
    const run = this.#run;
    // A template being made is waited for (its soffice quits by itself, or is killed at its time-out).
    await run.templating;
    run.templating = undefined;
    const env = await run.setup?.catch(() => undefined);
    this.#run = new Run(this.#settings.mode);
    if (env && !this.#settings.workDir) await rm(env.workDir, { recursive: true, force: true });
  }

  stopNow(): void {
    this.#pool.stopNow();
  }

  isolation(): Isolation | undefined {
    return this.#run.prepared?.isolation;
  }

  state(): ReturnType<LibreOfficeConverter["state"]> {
    const mode = this.#run.setup === undefined ? "unknown" : this.#run.warmUsable ? "warm" : "oneshot";
    return { mode, ...this.#pool.load() };
  }

  /** startWarmInstances brings one warm instance up, then starts the others without waiting. */
  async #startWarmInstances(): Promise<void> {
    const env = await this.#ready();
    if (!this.#run.warmUsable || !env.warm) return;
    // One first: a first request needs one, and two starting at once would share the CPU.
    await this.#pool.refill(Date.now() + this.#settings.timeoutMs);
    for (let i = 1; i < this.#settings.concurrency; i++) void this.#pool.refill(Date.now() + this.#settings.timeoutMs).catch(() => undefined);
  }

  #ready(): Promise<Setup> {
    const run = this.#run;
    run.setup ??= prepareOffice(this.#settings).then(
      (setup) => {
        run.warmUsable = setup.warm !== undefined;
        run.prepared = setup;
        return setup;
      },
      (error: unknown) => {
        run.setup = undefined;
        throw error;
      },
    );
    return run.setup;
  }

  /** makeTemplate makes the profile template once, after LibreOffice proved to work here (not before, so it never delays a first conversion). */
  #makeTemplate(env: Setup): void {
    const template = this.#settings.profileTemplate;
    if (!template) return;
    const environment = sofficeEnvironment(env.home, env.sourceEnv);
    const confine = (profile: string) => confinement(env.isolation, { profile, tmp: env.home }, environment);
    this.#run.templating ??= makeProfileTemplate(env.soffice, template, environment, 30_000, env.guard, confine).then((made) => {
      if (!made) logger.warn("the LibreOffice profile template could not be made; profiles start empty", { template });
    });
  }

  #slotEnv(env: Setup, index: number): Record<string, string> {
    return sofficeEnvironment(env.home, env.sourceEnv, { TMPDIR: slotTmp(env.workDir, index) });
  }

  async #clearTmp(index: number): Promise<void> {
    const prepared = this.#run.prepared;
    if (!prepared) return;
    const dir = slotTmp(prepared.workDir, index);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }

  /**
   * confinement is what a LibreOffice run of the slot sees (isolation.ts): the system, its
   * profile, the slot's /tmp, the job folder given (the slot's, or none) and the UNO driver.
   */
  #confinement(env: Setup, index: number, profile: string, job: string | undefined): Confinement {
    const folders = {
      profile,
      tmp: slotTmp(env.workDir, index),
      ...(job ? { job } : {}),
      programs: env.warm ? [env.warm.driverPath] : [],
    };
    return confinement(env.isolation, folders, this.#slotEnv(env, index));
  }

  /** warmBox is what the slot's warm instance sees: every job of the slot through the one job folder, which holds the current job's files only. */
  #warmBox(env: Setup, index: number): Confinement {
    return this.#confinement(env, index, join(env.workDir, "profiles", `warm-${index}`), slotJob(env.workDir, index));
  }

  /**
   * recycle ends the slot's LibreOffice and its process group, then every process still carrying
   * the slot's TMPDIR in its environment (one that left the group), then removes the slot's
   * profiles and temporary files, so the next job starts from the template as the first one did.
   */
  async #recycle(slot: Slot<WarmOffice>): Promise<void> {
    await this.#pool.discard(slot);
    const prepared = this.#run.prepared;
    if (!prepared) return;
    const strays = await killMarked(`TMPDIR=${slotTmp(prepared.workDir, slot.index)}`);
    if (strays > 0) logger.warn("LibreOffice left processes outside its process group; killed", { strays });
    for (const kind of ["warm", "oneshot"]) await rm(join(prepared.workDir, "profiles", `${kind}-${slot.index}`), { recursive: true, force: true });
    await this.#clearTmp(slot.index);
  }

  #createWarm(slot: Slot<WarmOffice>): WarmOffice {
    const env = this.#run.prepared!;
    const profile = join(env.workDir, "profiles", `warm-${slot.index}`);
    seedProfile(profile, this.#settings.profileTemplate);
    const box = this.#warmBox(env, slot.index);
    return new WarmOffice({
      python: env.warm!.python,
      driverPath: box.inside(env.warm!.driverPath),
      argv: [env.soffice, `-env:UserInstallation=${pathToFileURL(box.inside(profile)).href}`, ...SOFFICE_FLAGS],
      pipeName: `signet-${process.pid}-${this.#tag}-${slot.index}-${slot.generation}`,
      env: this.#slotEnv(env, slot.index),
      cwd: env.home,
      confine: box.command,
      sandboxed: env.isolation.files === "bwrap",
    });
  }

  /**
   * oneShot converts with `soffice --convert-to` in the slot. `profile` "warm" borrows the slot's
   * warm profile (already initialised, so LibreOffice starts as fast as a plain soffice with its
   * profile): only while the slot's warm instance is stopped.
   */
  async #oneShot(env: Setup, slot: Slot<WarmOffice>, job: JobFiles, deadline: number, profileOf: "warm" | "oneshot", keepTmp = false): Promise<Buffer> {
    const profile = join(env.workDir, "profiles", `${profileOf}-${slot.index}`);
    seedProfile(profile, this.#settings.profileTemplate);
    try {
      const run = {
        soffice: env.soffice,
        profile,
        env: this.#slotEnv(env, slot.index),
        cwd: env.home,
        timeoutMs: this.#settings.timeoutMs,
        confinement: this.#confinement(env, slot.index, profile, job.dir),
      };
      return await runOneShot({ ...run, ...(env.guard ? { guard: env.guard } : {}) }, job, deadline);
    } finally {
      // The process group is gone: whatever it left in its TMPDIR goes too (unless the slot's warm
      // instance, which keeps its session folder there, took the job over).
      if (!keepTmp) await this.#clearTmp(slot.index);
    }
  }

  /**
   * handOver converts a document known to crash a load over UNO on the slot's warm instance all
   * the same: a `soffice --convert-to` client with the warm profile passes the job to the running
   * instance over LibreOffice's own pipe, where it runs in the main thread like a one-shot's (the
   * driver vetoes the termination that follows). Falls back to a real one-shot when that fails.
   */
  async #handOver(env: Setup, slot: Slot<WarmOffice>, job: JobFiles, deadline: number): Promise<{ output: Buffer; stopped: boolean }> {
    const office = await this.#pool.process(slot, deadline).catch(() => undefined);
    if (office) {
      try {
        return { output: await this.#oneShot(env, slot, job, deadline, "warm", true), stopped: false };
      } catch (error) {
        await this.#pool.discard(slot);
        if (isSignetError(error) && error.code === "CONVERSION_TIMEOUT") throw error;
        logger.warn("warm LibreOffice could not take a document over; converting one-shot", { error: String(error) });
        job = await freshOutput(job, "handover-retry");
      }
    }
    await this.#pool.discard(slot);
    return { output: await this.#oneShot(env, slot, job, deadline, "warm"), stopped: true };
  }

  /** warmProcess is the slot's warm LibreOffice, started when needed; WarmUnavailableError when it does not start. */
  async #warmProcess(slot: Slot<WarmOffice>, deadline: number): Promise<WarmOffice> {
    try {
      return await this.#pool.process(slot, deadline);
    } catch (error) {
      if (error instanceof WarmStartError && error.kind === "timeout") throw conversionTimeout(this.#settings.timeoutMs);
      if (++this.#run.startFailures >= 2) {
        this.#run.warmUsable = false;
        logger.warn("warm LibreOffice does not start; using one-shot conversions from now on", { error: String(error) });
      }
      throw new WarmUnavailableError("warm LibreOffice did not start", { cause: error });
    }
  }

  /**
   * warmRun converts on the slot's warm LibreOffice. WarmCrashedError when it died or failed the
   * export on this document (retry one-shot), WarmUnavailableError when it does not start.
   */
  async #warmRun(slot: Slot<WarmOffice>, job: JobFiles, deadline: number): Promise<Buffer> {
    const office = await this.#warmProcess(slot, deadline);
    const { inside } = this.#warmBox(this.#run.prepared!, slot.index);
    const warmJob: WarmJob = { input: pathToFileURL(inside(job.inputPath)).href, output: pathToFileURL(inside(job.outputPath)).href, ...filtersOf(job) };
    const outcome = await office.run(warmJob, deadline);
    if (outcome.ok) {
      this.#run.startFailures = 0;
      return (await readOutput(job)) ?? Promise.reject(unreadable(job.from));
    }
    switch (outcome.kind) {
      case "timeout":
        // Killed at the deadline: gone, with its temporary files, before the slot takes a job.
        await this.#pool.discard(slot);
        throw conversionTimeout(this.#settings.timeoutMs);
      case "load":
        throw unreadable(job.from);
      default:
        // A crash or a failed export: LibreOffice is replaced for the next job and this one is
        // retried once with a fresh one-shot process, which survives documents the warm one does not.
        logger.warn("warm LibreOffice failed during a conversion; retrying one-shot", { kind: outcome.kind, error: outcome.error });
        // Gone before the retry starts, so the slot never holds two LibreOffice processes.
        await this.#pool.discard(slot);
        throw new WarmCrashedError(`warm LibreOffice failed: ${outcome.kind}`);
    }
  }

  /**
   * convertInSlot runs one job in its slot. Warm first; a document that crashes the warm instance
   * is retried at once one-shot on the slot's (initialised) warm profile, and remembered (SHA-256)
   * so that next time it is handed over to the warm instance as a `--convert-to` job (handOver);
   * documents known to crash a load over UNO (crashesUnoLoad) are handed over on first sight.
   * Answers whether the slot's warm instance was stopped for the job, so that the caller restarts
   * it once the answer is out.
   */
  async #convertInSlot(request: ConversionJob, slot: Slot<WarmOffice>): Promise<{ output: Buffer; stopped: boolean }> {
    const env = await this.#ready();
    const deadline = Date.now() + this.#settings.timeoutMs;
    const jobDir = slotJob(env.workDir, slot.index);
    // Whatever an earlier job of the slot left (a kill at the deadline) goes before this one's files come.
    await emptyFolder(jobDir);
    try {
      const job = await writeInput(request, jobDir);
      if (!this.#run.warmUsable || !env.warm) return { output: await this.#oneShot(env, slot, job, deadline, "oneshot"), stopped: false };
      if (this.#run.crashers.has(request) || crashesUnoLoad(request)) return await this.#handOver(env, slot, job, deadline);
      try {
        return { output: await this.#warmRun(slot, job, deadline), stopped: false };
      } catch (error) {
        if (!(error instanceof WarmCrashedError || error instanceof WarmUnavailableError)) throw error;
        const crashed = error instanceof WarmCrashedError;
        if (crashed) this.#run.crashers.remember(request);
        // A failed warm attempt can leave a partial output; the retry writes into a fresh folder.
        const retry = await freshOutput(job, "retry");
        return { output: await this.#oneShot(env, slot, retry, deadline, crashed ? "warm" : "oneshot"), stopped: crashed };
      }
    } finally {
      await emptyFolder(jobDir);
    }
  }
}

/**
 * createLibreOfficeConverter returns the LibreOffice converter (an OfficeSupervisor behind the
 * port): created idle, LibreOffice is located and started on first use (or on warm()).
 */
export function createLibreOfficeConverter(options: Partial<LibreOfficeConverterOptions> = {}): LibreOfficeConverter {
  const office = new OfficeSupervisor({ ...defaults, ...options });
  // Plain functions, not the class's methods: private fields would not survive a wrapper.
  return {
    convert: (document, options) => office.convert(conversionJob(document, options)),
    warm: () => office.warm(),
    startEarly: (maxWaitMs) => office.startEarly(maxWaitMs),
    close: () => office.close(),
    stopNow: () => office.stopNow(),
    state: () => office.state(),
    isolation: () => office.isolation(),
  };
}

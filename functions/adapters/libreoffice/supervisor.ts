// The converter's lifecycle: the slot pool, each slot's warm LibreOffice and its one-shot runs,
// the job folders, recycling and closing. What to try for a job comes from plan.ts; where
// LibreOffice is and what isolates it, from discovery.ts.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { logger } from "#adapters/powertools-logger.ts";
import { discoverOffice, type OfficeSetup } from "#adapters/libreoffice/discovery.ts";
import { conversionTimeout, unreadable } from "#adapters/libreoffice/errors.ts";
import { confinement, type Confinement, type Isolation, type IsolationMode } from "#adapters/libreoffice/isolation.ts";
import { crashesUnoLoad, filtersOf, freshOutput, readOutput, writeInput, type JobFiles } from "#adapters/libreoffice/job-files.ts";
import { runOneShot, SOFFICE_FLAGS } from "#adapters/libreoffice/one-shot.ts";
import { planAfterJob, planAttempt, type Attempt, type AttemptFailure } from "#adapters/libreoffice/plan.ts";
import { killMarked } from "#adapters/libreoffice/process-group.ts";
import { makeProfileTemplate, seedProfile, sofficeEnvironment } from "#adapters/libreoffice/profile.ts";
import { SlotPool, type Slot } from "#adapters/libreoffice/slot-pool.ts";
import { WarmOffice, WarmStartError, type WarmJob } from "#adapters/libreoffice/warm-office.ts";
import { emptyFolder, slotJob, slotTmp } from "#adapters/libreoffice/work-dir.ts";
import type { ConversionJob } from "#domain/documents/converter.ts";
import { isSignetError } from "#domain/shared/errors.ts";

/** Making the profile template is one LibreOffice start and quit: far below this unless it hangs. */
const TEMPLATE_TIMEOUT_MS = 30_000;
/** Documents remembered as crashing a warm LibreOffice. */
const CRASH_MEMORY = 256;

/**
 * LibreOfficeConverterOptions configure a converter. Every value with a default is a setting of
 * functions/config.ts (settings.conversion), the only place defaults live: functions/wiring/
 * passes them all; the optional ones here mean "not set".
 */
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
  /** Folder for profiles and job files; a fresh private one under `tempDir` when unset. */
  workDir?: string;
  /** Where the private work folder is made (and stale ones of dead processes swept); the OS temp folder when unset. */
  tempDir?: string;
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

/** ConverterState is the effective mode and the load, for logs and tests. */
export interface ConverterState {
  mode: "warm" | "oneshot" | "unknown";
  running: number;
  queued: number;
}

/** CrashMemory remembers the documents that crashed a warm LibreOffice (SHA-256 of input and options, the last CRASH_MEMORY). */
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
    if (this.#digests.size >= CRASH_MEMORY) this.#digests.delete(this.#digests.values().next().value!);
    this.#digests.add(CrashMemory.digestOf(request));
  }
}

/** Run is what one life of the converter holds, from its first use to close(): close() starts a fresh one. */
class Run {
  setup: Promise<OfficeSetup> | undefined;
  prepared: OfficeSetup | undefined;
  warmUsable: boolean;
  startFailures = 0;
  readonly crashers = new CrashMemory();
  early: Promise<void> | undefined;
  templating: Promise<unknown> | undefined;

  constructor(mode: LibreOfficeConverterOptions["mode"]) {
    this.warmUsable = mode === "warm";
  }
}

/** Tried is the outcome of one attempt: the document, or how it failed (see plan.ts). */
type Tried = { output: Buffer } | { failure: AttemptFailure };

/** JobState is one job in its slot: the setup, the slot, its files (a retry replaces them) and its deadline. */
interface JobState {
  env: OfficeSetup;
  slot: Slot<WarmOffice>;
  job: JobFiles;
  deadline: number;
  /** The job's time limit (its own, or the converter's), for the message of a time-out. */
  limitMs: number;
}

/**
 * OfficeSupervisor composes the parts: a slot pool (queue, one process per slot), the warm runner
 * (WarmOffice over uno-driver.py) and the one-shot runner (`soffice --convert-to`). It does
 * nothing at creation: LibreOffice is discovered and started on first use (or on warm()). Every
 * job gets a private folder; every LibreOffice its own seeded profile and TMPDIR, an allow-listed
 * environment and a hard time-out that kills its whole process group, after which its temporary
 * files are removed. Each attempt at a job is what planAttempt decides from how the last one ended.
 */
export class OfficeSupervisor {
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

  /** convert runs one job in a free slot; afterwards the slot recycles, or its stopped warm instance starts again (planAfterJob). */
  async convert(request: ConversionJob): Promise<Buffer> {
    const env = await this.#ready();
    let restartWarm = false;
    const { output } = await this.#pool.run(async (slot) => {
      let done: { output: Buffer; stopped: boolean } | undefined;
      try {
        done = await this.#convertInSlot(request, slot);
        return done;
      } finally {
        const after = planAfterJob({
          recycle: this.#settings.recycle,
          succeeded: done !== undefined,
          warmStopped: done?.stopped ?? false,
          warm: this.#run.warmUsable,
        });
        // Within the slot: the next job waits until nothing of this one is left.
        if (after.recycle) await this.#recycle(slot);
        restartWarm = after.restartWarm;
      }
    });
    // Now, not in the next request (the answer is not held up by it).
    if (restartWarm) void this.#pool.refill(Date.now() + this.#settings.timeoutMs).catch(() => undefined);
    this.#makeTemplate(env);
    return output;
  }

  /** warm discovers LibreOffice and brings every warm instance up through one conversion. */
  async warm(): Promise<void> {
    const env = await this.#ready();
    if (!this.#warmPath(env)) return;
    // A tiny HTML document per slot brings each LibreOffice up and through one conversion.
    const warmUp = () => this.convert({ bytes: Buffer.from("<p>warm-up</p>"), from: "html", to: "pdf" });
    await Promise.all(Array.from({ length: this.#settings.concurrency }, warmUp));
  }

  /** startEarly starts the warm instances without a conversion and waits for the first at most maxWaitMs; never rejects. */
  async startEarly(maxWaitMs: number): Promise<void> {
    const run = this.#run;
    run.early ??= this.#startWarmInstances().catch((error: unknown) =>
      logger.warn("LibreOffice could not be started early; the first conversion starts it", { error: String(error) }),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([run.early, new Promise((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
    clearTimeout(timer);
  }

  /** close waits for running conversions, stops every LibreOffice and removes the work folder; the next use starts afresh. */
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

  /** stopNow kills every LibreOffice at once, without waiting. */
  stopNow(): void {
    this.#pool.stopNow();
  }

  /** isolation is what keeps LibreOffice apart here, once discovered. */
  isolation(): Isolation | undefined {
    return this.#run.prepared?.isolation;
  }

  /** state is the effective mode and the load. */
  state(): ConverterState {
    const mode = this.#run.setup === undefined ? "unknown" : this.#run.warmUsable ? "warm" : "oneshot";
    return { mode, ...this.#pool.load() };
  }

  #warmPath(env: OfficeSetup): boolean {
    return this.#run.warmUsable && env.warm !== undefined;
  }

  /** startWarmInstances brings one warm instance up, then starts the others without waiting. */
  async #startWarmInstances(): Promise<void> {
    const env = await this.#ready();
    if (!this.#warmPath(env)) return;
    // One first: a first request needs one, and two starting at once would share the CPU.
    await this.#pool.refill(Date.now() + this.#settings.timeoutMs);
    for (let i = 1; i < this.#settings.concurrency; i++) void this.#pool.refill(Date.now() + this.#settings.timeoutMs).catch(() => undefined);
  }

  #ready(): Promise<OfficeSetup> {
    const run = this.#run;
    run.setup ??= discoverOffice(this.#settings).then(
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
  #makeTemplate(env: OfficeSetup): void {
    const template = this.#settings.profileTemplate;
    if (!template) return;
    const environment = sofficeEnvironment(env.home, env.sourceEnv);
    const confine = (profile: string) => confinement(env.isolation, { profile, tmp: env.home }, environment);
    this.#run.templating ??= makeProfileTemplate(env.soffice, template, environment, TEMPLATE_TIMEOUT_MS, env.guard, confine).then((made) => {
      if (!made) logger.warn("the LibreOffice profile template could not be made; profiles start empty", { template });
    });
  }

  #slotEnv(env: OfficeSetup, index: number): Record<string, string> {
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
  #confinement(env: OfficeSetup, index: number, profile: string, job: string | undefined): Confinement {
    const folders = {
      profile,
      tmp: slotTmp(env.workDir, index),
      ...(job ? { job } : {}),
      programs: env.warm ? [env.warm.driverPath] : [],
    };
    return confinement(env.isolation, folders, this.#slotEnv(env, index));
  }

  /** warmBox is what the slot's warm instance sees: every job of the slot through the one job folder, which holds the current job's files only. */
  #warmBox(env: OfficeSetup, index: number): Confinement {
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
   * convertInSlot runs one job in its slot: attempts as planAttempt decides, at most two (a warm
   * or hand-over attempt, then a one-shot). A document that crashed the warm instance is
   * remembered (SHA-256), so that next time it is handed over. Answers whether the slot's warm
   * instance was stopped for the job, so that the caller restarts it once the answer is out.
   */
  async #convertInSlot(request: ConversionJob, slot: Slot<WarmOffice>): Promise<{ output: Buffer; stopped: boolean }> {
    const env = await this.#ready();
    const limitMs = request.timeoutMs ?? this.#settings.timeoutMs;
    const deadline = Date.now() + limitMs;
    const jobDir = slotJob(env.workDir, slot.index);
    // Whatever an earlier job of the slot left (a kill at the deadline) goes before this one's files come.
    await emptyFolder(jobDir);
    try {
      const state: JobState = { env, slot, job: await writeInput(request, jobDir), deadline, limitMs };
      // The document is hashed and its parts read only when the warm path could use the answer.
      const knownCrasher = this.#warmPath(env) && (this.#run.crashers.has(request) || crashesUnoLoad(request));
      let previous: AttemptFailure | undefined;
      for (;;) {
        const attempt = planAttempt({ warm: this.#warmPath(env), knownCrasher, budgetLeftMs: deadline - Date.now(), previous });
        const tried = await this.#attempt(attempt, state, previous);
        if ("output" in tried) return { output: tried.output, stopped: attempt.kind === "one-shot" && attempt.restartWarm };
        if (tried.failure === "warm-crashed") this.#run.crashers.remember(request);
        previous = tried.failure;
      }
    } finally {
      await emptyFolder(jobDir);
    }
  }

  /** attempt carries out one planned attempt; a one-shot gives the document or throws, the others may answer how they failed. */
  async #attempt(attempt: Attempt, state: JobState, previous: AttemptFailure | undefined): Promise<Tried> {
    switch (attempt.kind) {
      case "fail":
        throw attempt.error === "timeout" ? conversionTimeout(state.limitMs) : unreadable(state.job.from);
      case "warm":
        return this.#warmRun(state);
      case "hand-over":
        return this.#handOver(state);
      default:
        // A failed attempt can leave a partial output; the retry writes into a fresh folder.
        if (attempt.freshOutput) state.job = await freshOutput(state.job, previous === "handover-failed" ? "handover-retry" : "retry");
        // The warm profile is borrowed only while the slot's warm instance is stopped.
        if (attempt.profile === "warm") await this.#pool.discard(state.slot);
        return { output: await this.#oneShot(state, attempt.profile) };
    }
  }

  /**
   * oneShot converts with `soffice --convert-to` in the slot. `profile` "warm" borrows the slot's
   * warm profile (already initialised, so LibreOffice starts as fast as a plain soffice with its
   * profile). `keepTmp`: the slot's running warm instance took the job over and keeps its session folder in the TMPDIR.
   */
  async #oneShot(state: JobState, profileOf: "warm" | "oneshot", keepTmp = false): Promise<Buffer> {
    const { env, slot, job, deadline } = state;
    const profile = join(env.workDir, "profiles", `${profileOf}-${slot.index}`);
    seedProfile(profile, this.#settings.profileTemplate);
    try {
      const run = {
        soffice: env.soffice,
        profile,
        env: this.#slotEnv(env, slot.index),
        cwd: env.home,
        timeoutMs: state.limitMs,
        confinement: this.#confinement(env, slot.index, profile, job.dir),
      };
      return await runOneShot({ ...run, ...(env.guard ? { guard: env.guard } : {}) }, job, deadline);
    } finally {
      // The process group is gone: whatever it left in its TMPDIR goes too.
      if (!keepTmp) await this.#clearTmp(slot.index);
    }
  }

  /**
   * handOver converts a document known to crash a load over UNO on the slot's warm instance all
   * the same: a `soffice --convert-to` client with the warm profile passes the job to the running
   * instance over LibreOffice's own pipe, where it runs in the main thread like a one-shot's (the
   * driver vetoes the termination that follows).
   */
  async #handOver(state: JobState): Promise<Tried> {
    const office = await this.#pool.process(state.slot, state.deadline).catch(() => undefined);
    if (!office) return { failure: "handover-no-warm" };
    try {
      return { output: await this.#oneShot(state, "warm", true) };
    } catch (error) {
      await this.#pool.discard(state.slot);
      if (isSignetError(error) && error.code === "CONVERSION_TIMEOUT") return { failure: "handover-timeout" };
      logger.warn("warm LibreOffice could not take a document over; converting one-shot", { error: String(error) });
      return { failure: "handover-failed" };
    }
  }

  /** warmProcess is the slot's warm LibreOffice, started when needed; after two failed starts in a row the warm path is given up. */
  async #warmProcess(slot: Slot<WarmOffice>, deadline: number): Promise<WarmOffice | "warm-timeout" | "warm-unavailable"> {
    try {
      return await this.#pool.process(slot, deadline);
    } catch (error) {
      if (error instanceof WarmStartError && error.kind === "timeout") return "warm-timeout";
      if (++this.#run.startFailures >= 2) {
        this.#run.warmUsable = false;
        logger.warn("warm LibreOffice does not start; using one-shot conversions from now on", { error: String(error) });
      }
      return "warm-unavailable";
    }
  }

  /** warmRun converts on the slot's warm LibreOffice; a warm instance killed at the deadline or crashed is gone before this returns. */
  async #warmRun(state: JobState): Promise<Tried> {
    const { slot, job, deadline } = state;
    const office = await this.#warmProcess(slot, deadline);
    if (typeof office === "string") return { failure: office };
    const { inside } = this.#warmBox(state.env, slot.index);
    const warmJob: WarmJob = { input: pathToFileURL(inside(job.inputPath)).href, output: pathToFileURL(inside(job.outputPath)).href, ...filtersOf(job) };
    const outcome = await office.run(warmJob, deadline);
    if (outcome.ok) {
      this.#run.startFailures = 0;
      const output = await readOutput(job);
      return output ? { output } : { failure: "warm-unreadable" };
    }
    switch (outcome.kind) {
      case "timeout":
        // Killed at the deadline: gone, with its temporary files, before the slot takes a job.
        await this.#pool.discard(slot);
        return { failure: "warm-timeout" };
      case "load":
        return { failure: "warm-unreadable" };
      default:
        // A crash or a failed export: LibreOffice is replaced for the next job (gone before the
        // one-shot retry starts, so the slot never holds two LibreOffice processes).
        logger.warn("warm LibreOffice failed during a conversion; retrying one-shot", { kind: outcome.kind, error: outcome.error });
        await this.#pool.discard(slot);
        return { failure: "warm-crashed" };
    }
  }
}

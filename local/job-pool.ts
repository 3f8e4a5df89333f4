import { logger } from "#adapters/powertools-logger.ts";
import { type JobRunnerDeps, expireDue, runJob } from "#http/job-runner.ts";

/**
 * EXPIRY_EVERY_MS: the pool polls on every job queued and every job finished; the expiry query
 * runs at most this often: one query less per job under load, results expire at most 1 s later.
 */
const EXPIRY_EVERY_MS = 1_000;

/** JobPoolOptions: how many jobs run at once and how often the store is read. */
export interface JobPoolOptions {
  workers: number;
  pollMs: number;
}

/**
 * JobPool is the local server's job worker: it reads the unfinished jobs from the job store
 * (dynalite, so queued jobs and jobs whose run died with the process resume after a restart),
 * runs up to `workers` at once through the routes' own handlers (runJob), and expires results
 * whose time passed (the S3 stand-in has no lifecycle rules). Stands for SQS and the worker Lambda.
 */
export class JobPool {
  readonly #deps: JobRunnerDeps;
  readonly #options: JobPoolOptions;
  readonly #running = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  /** The poll under way (settled when there is none): stop waits for it, so no query meets closed stand-ins. */
  #pollSettled: Promise<void> = Promise.resolve();
  #again = false;
  #stopped = false;
  /** When results were last looked for to expire: at most every EXPIRY_EVERY_MS, not on every wake. */
  #expiredAt = 0;

  constructor(deps: JobRunnerDeps, options: JobPoolOptions) {
    // One local server holds its data folder: a job running since before this pool is a dead process's.
    this.#deps = { ...deps, staleBefore: deps.now() };
    this.#options = options;
  }

  /** start begins polling (at once, then every pollMs). */
  start(): void {
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
    this.#timer.unref();
  }

  /** wake polls now (a job was queued, or one finished); during a poll, once more right after it. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#polling) this.#again = true;
    else void this.#poll();
  }

  #poll(): Promise<void> {
    if (this.#polling || this.#stopped) return this.#pollSettled;
    this.#polling = true;
    this.#again = false;
    this.#pollSettled = this.#pollOnce();
    return this.#pollSettled;
  }

  async #pollOnce(): Promise<void> {
    try {
      await this.#expire();
      const free = this.#options.workers - this.#running.size;
      if (free > 0) {
        const ids = await this.#deps.store.unfinished(free + this.#running.size + 16);
        for (const id of ids.filter((id) => !this.#running.has(id)).slice(0, free)) this.#run(id);
      }
    } catch (error) {
      logger.warn("job pool: the job store could not be read", { error: error as Error });
    } finally {
      this.#polling = false;
      clearTimeout(this.#timer);
      this.#schedule(this.#again ? 0 : this.#options.pollMs);
    }
  }

  #run(id: string): void {
    const run = runJob(id, this.#deps)
      .catch((error: unknown) => logger.error("job not run", { jobId: id, error: error as Error }))
      .then(() => undefined)
      .finally(() => {
        this.#running.delete(id);
        // A slot is free: look for the next job now, not at the next tick.
        if (!this.#stopped) void this.#poll();
      });
    this.#running.set(id, run);
  }

  async #expire(): Promise<void> {
    const now = this.#deps.now();
    if (now - this.#expiredAt < EXPIRY_EVERY_MS) return;
    this.#expiredAt = now;
    await expireDue(this.#deps);
  }

  /** stop ends polling and waits for the poll and the jobs under way (a job cut by a kill resumes at the next start). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pollSettled;
    await Promise.all(this.#running.values());
  }
}

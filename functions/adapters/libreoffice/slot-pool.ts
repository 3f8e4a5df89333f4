import { busy, shuttingDown } from "#adapters/libreoffice/errors.ts";

/**
 * OfficeProcess is a long-lived worker a slot may keep between jobs (a warm LibreOffice), as
 * Gotenberg's Process: start brings it up before the deadline (epoch ms) or rejects, stop ends it
 * and resolves once nothing of it is left, healthy tells whether it can take another job.
 */
export interface OfficeProcess {
  start(deadline: number): Promise<void>;
  stop(): Promise<void>;
  healthy(): boolean;
}

/** Slot is one place to run a conversion; `process` is its warm worker, if any. */
export interface Slot<P extends OfficeProcess> {
  readonly index: number;
  process?: P;
  /** Jobs the current process took. */
  jobs: number;
  /** Processes this slot started (names pipes and profiles apart). */
  generation: number;
}

/** SlotPoolOptions size the pool; `create` makes the process for a slot (never called in one-shot use). */
export interface SlotPoolOptions<P extends OfficeProcess> {
  size: number;
  /** Jobs that may wait for a free slot; more are refused with RATE_LIMIT_ERROR. */
  queueLength: number;
  /** A process is replaced after this many jobs (bounds leaks). */
  maxJobsPerProcess: number;
  create?: (slot: Slot<P>) => P;
  /** Called after a slot's process was stopped (its files can go). */
  onStopped?: (slot: Slot<P>) => Promise<void> | void;
}

/**
 * SlotPool is the supervisor: a fixed number of slots, a bounded queue in arrival order, a retry
 * estimate for refused jobs, and the lifecycle of each slot's process: started on demand, replaced
 * when unhealthy or worn out, and always stopped (and gone) before its replacement starts, so a
 * slot never holds two processes. It knows nothing of LibreOffice.
 */
export class SlotPool<P extends OfficeProcess> {
  private readonly slots: Array<Slot<P> & { busy: boolean }>;
  private readonly waiting: Array<{ resolve: (slot: number) => void; reject: (error: Error) => void }> = [];
  private readonly running = new Set<Promise<unknown>>();
  // Every run from its call on (waiting ones included), so close() never misses one just begun.
  private readonly pending = new Set<Promise<unknown>>();
  private averageMs = 2_000;

  constructor(private readonly options: SlotPoolOptions<P>) {
    this.slots = Array.from({ length: options.size }, (_, index) => ({ index, busy: false, jobs: 0, generation: 0 }));
  }

  /** run waits for a free slot (or refuses when the queue is full), runs work in it and frees it. */
  run<T>(work: (slot: Slot<P>) => Promise<T>, prefer?: (slot: Slot<P>) => boolean): Promise<T> {
    const task = this.runInSlot(work, prefer);
    this.pending.add(task);
    const forget = () => this.pending.delete(task);
    task.then(forget, forget);
    return task;
  }

  private async runInSlot<T>(work: (slot: Slot<P>) => Promise<T>, prefer?: (slot: Slot<P>) => boolean): Promise<T> {
    const index = await this.acquire(prefer);
    const started = Date.now();
    const job = work(this.slots[index]!);
    this.running.add(job);
    try {
      const result = await job;
      this.averageMs = this.averageMs * 0.8 + (Date.now() - started) * 0.2;
      return result;
    } finally {
      this.running.delete(job);
      this.release(index);
    }
  }

  /**
   * process returns the slot's healthy process, started, replacing one that is unhealthy or worn
   * out. Counts the job. Rejects as the process's start does (the failed process is stopped).
   */
  async process(slot: Slot<P>, deadline: number): Promise<P> {
    if (!this.options.create) throw new Error("this pool runs no processes");
    if (slot.process && (!slot.process.healthy() || slot.jobs >= this.options.maxJobsPerProcess)) await this.discard(slot);
    if (!slot.process) {
      slot.generation++;
      slot.jobs = 0;
      slot.process = this.options.create(slot);
      try {
        await slot.process.start(deadline);
      } catch (error) {
        await this.discard(slot);
        throw error;
      }
    }
    slot.jobs++;
    return slot.process;
  }

  /** discard stops the slot's process (after a crash or a time-out) and waits until it is gone. */
  async discard(slot: Slot<P>): Promise<void> {
    const process = slot.process;
    delete slot.process;
    if (process) await process.stop();
    await this.options.onStopped?.(slot);
  }

  /** refill starts the process of a free slot that has none (holding the slot while it starts). */
  async refill(deadline: number): Promise<void> {
    const empty = (slot: Slot<P>) => !slot.process;
    if (!this.slots.some((slot) => !slot.busy && empty(slot))) return;
    await this.run(async (slot) => {
      if (slot.process) return;
      await this.process(slot, deadline);
      slot.jobs = 0;
    }, empty);
  }

  /** warmAll starts every slot's process now, each holding its slot while it starts. */
  async warmAll(deadline: number): Promise<void> {
    await Promise.all(this.slots.map(() => this.run((slot) => this.process(slot, deadline).then(() => undefined))));
  }

  /** close refuses the waiting jobs, waits for the running ones and stops every process. */
  async close(): Promise<void> {
    for (const waiter of this.waiting.splice(0)) waiter.reject(shuttingDown());
    await Promise.allSettled([...this.pending]);
    await Promise.all(this.slots.map((slot) => this.discard(slot)));
  }

  /** stopNow kills every process without waiting (process exit). */
  stopNow(): void {
    for (const slot of this.slots) void slot.process?.stop();
  }

  /** load reports the running and the waiting jobs. */
  load(): { running: number; queued: number } {
    return { running: this.running.size, queued: this.waiting.length };
  }

  private acquire(prefer?: (slot: Slot<P>) => boolean): Promise<number> {
    const preferred = prefer ? this.slots.findIndex((slot) => !slot.busy && prefer(slot)) : -1;
    const free = preferred >= 0 ? preferred : this.slots.findIndex((slot) => !slot.busy);
    if (free >= 0) {
      this.slots[free]!.busy = true;
      return Promise.resolve(free);
    }
    if (this.waiting.length >= this.options.queueLength) {
      const retryAfterSeconds = Math.max(1, Math.ceil(((this.waiting.length / this.options.size + 1) * this.averageMs) / 1000));
      return Promise.reject(busy(this.options.size, this.waiting.length, retryAfterSeconds));
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(index: number): void {
    const next = this.waiting.shift();
    if (next) next.resolve(index);
    else this.slots[index]!.busy = false;
  }
}

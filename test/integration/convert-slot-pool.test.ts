// The LibreOffice slot pool (supervisor) with fake processes: no LibreOffice needed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SlotPool, type OfficeProcess } from "#adapters/libreoffice/slot-pool.ts";
import { isSignetError } from "#domain/shared/errors.ts";

/** FakeProcess records its life in a shared log; `failStart` makes start reject. */
class FakeProcess implements OfficeProcess {
  alive = false;
  constructor(
    readonly name: string,
    private readonly log: string[],
    private readonly live: Set<string>,
    private readonly failStart = false,
  ) {}
  async start(): Promise<void> {
    await Promise.resolve();
    if (this.failStart) throw new Error(`${this.name} cannot start`);
    this.live.add(this.name);
    this.alive = true;
    this.log.push(`start ${this.name}`);
  }
  async stop(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.live.delete(this.name);
    this.alive = false;
    this.log.push(`stop ${this.name}`);
  }
  healthy(): boolean {
    return this.alive;
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function makePool(options: { size?: number; queueLength?: number; maxJobs?: number; failStart?: boolean } = {}) {
  const log: string[] = [];
  const live = new Set<string>();
  const cleared: number[] = [];
  const pool = new SlotPool<FakeProcess>({
    size: options.size ?? 1,
    queueLength: options.queueLength ?? 4,
    maxJobsPerProcess: options.maxJobs ?? 100,
    create: (slot) => new FakeProcess(`p${slot.index}.${slot.generation}`, log, live, options.failStart),
    onStopped: (slot) => {
      cleared.push(slot.index);
      // A slot never holds two processes: its old one is gone before anything else happens.
      expect([...live].filter((name) => name.startsWith(`p${slot.index}.`))).toEqual([]);
    },
  });
  return { pool, log, live, cleared };
}

describe("LibreOffice slot pool", () => {
  it("runs jobs in arrival order when the slots are busy, and refuses beyond the queue with a retry time", async () => {
    const { pool } = makePool({ size: 1, queueLength: 2 });
    const gate = deferred();
    const order: number[] = [];
    const jobs = [0, 1, 2].map((i) =>
      pool.run(async () => {
        if (i === 0) await gate.promise;
        order.push(i);
      }),
    );
    const refused = await pool.run(async () => "ran").catch((error: unknown) => error);
    expect(isSignetError(refused) && refused.code).toBe("RATE_LIMIT_ERROR");
    expect(isSignetError(refused) && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(pool.load()).toEqual({ running: 1, queued: 2 });
    gate.resolve();
    await Promise.all(jobs);
    expect(order).toEqual([0, 1, 2]);
    expect(pool.load()).toEqual({ running: 0, queued: 0 });
  });

  it("starts a slot's process on demand, reuses it while healthy, and replaces it when unhealthy", async () => {
    const { pool, log, cleared } = makePool();
    const first = await pool.run((slot) => pool.process(slot, Date.now() + 1000));
    const again = await pool.run((slot) => pool.process(slot, Date.now() + 1000));
    expect(again).toBe(first);
    first.alive = false; // crashed between jobs
    const replaced = await pool.run((slot) => pool.process(slot, Date.now() + 1000));
    expect(replaced).not.toBe(first);
    expect(log).toEqual(["start p0.1", "stop p0.1", "start p0.2"]);
    expect(cleared).toEqual([0]);
  });

  it("replaces a process after maxJobsPerProcess jobs, stopping the old one first", async () => {
    const { pool, log } = makePool({ maxJobs: 2 });
    for (let i = 0; i < 3; i++) await pool.run((slot) => pool.process(slot, Date.now() + 1000));
    expect(log).toEqual(["start p0.1", "stop p0.1", "start p0.2"]);
  });

  it("discards a process (a time-out or a crash in a job): gone, then its files cleared", async () => {
    const { pool, live, cleared } = makePool();
    await pool.run(async (slot) => {
      await pool.process(slot, Date.now() + 1000);
      await pool.discard(slot);
      expect(slot.process).toBeUndefined();
    });
    expect(live.size).toBe(0);
    expect(cleared).toEqual([0]);
  });

  it("refills the free slot that has no process, not another one", async () => {
    const { pool, log } = makePool({ size: 2 });
    await pool.warmAll(Date.now() + 1000);
    await pool.run(async (slot) => {
      expect(slot.index).toBe(0);
      await pool.discard(slot); // slot 0 lost its process (a crashing document)
    });
    await pool.refill(Date.now() + 1000);
    await pool.refill(Date.now() + 1000); // nothing left to refill
    expect(log.filter((line) => line.startsWith("start"))).toEqual(["start p0.1", "start p1.1", "start p0.2"]);
    await pool.close();
  });

  it("stops a process that failed to start and passes the start error on", async () => {
    const { pool, live } = makePool({ failStart: true });
    await expect(pool.run((slot) => pool.process(slot, Date.now() + 1000))).rejects.toThrow(/cannot start/);
    expect(live.size).toBe(0);
  });

  it("on close refuses the waiting jobs, lets running ones finish and stops every process", async () => {
    const { pool, live } = makePool({ size: 2 });
    await pool.warmAll(Date.now() + 1000);
    expect(live.size).toBe(2);
    const gates = [deferred(), deferred()];
    const running = gates.map((gate) => pool.run(() => gate.promise.then(() => "done")));
    const waiting = pool.run(async () => "never");
    const closing = pool.close();
    await expect(waiting).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    for (const gate of gates) gate.resolve();
    await expect(Promise.all(running)).resolves.toEqual(["done", "done"]);
    await closing;
    expect(live.size).toBe(0);
  });
});

describe("the UNO driver", () => {
  it("is valid Python 3 (py_compile)", () => {
    const driver = fileURLToPath(new URL("../../functions/adapters/libreoffice/uno-driver.py", import.meta.url));
    const cache = mkdtempSync(join(tmpdir(), "signet-pycache-"));
    try {
      // Throws with the compiler's message on a syntax error; the cache goes to a temporary folder.
      execFileSync("python3", ["-m", "py_compile", driver], { env: { ...process.env, PYTHONPYCACHEPREFIX: cache }, stdio: "pipe" });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

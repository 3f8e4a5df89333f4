// The local job pool at shutdown: stop() waits for a poll of the job store that is under way, so no
// query of the pool reaches the key-table stand-in after the server closed it (an ECONNREFUSED in
// the log before). The store is a stand-in through the port: a query held open at a chosen moment
// is a timing the real dynalite cannot be made to produce on demand.
import { describe, expect, it } from "vitest";
import type { JobRunnerDeps } from "#http/job-runner.ts";
import { JobPool } from "#local/job-pool.ts";

describe("JobPool.stop", () => {
  it("waits for the poll under way before it resolves, and polls no more", async () => {
    let release!: (ids: string[]) => void;
    let queries = 0;
    const store = {
      dueToExpire: async () => [],
      unfinished: () => {
        queries += 1;
        return new Promise<string[]>((resolve) => {
          release = resolve;
        });
      },
    };
    const deps = { store, now: () => Date.now() } as unknown as JobRunnerDeps;
    const pool = new JobPool(deps, { workers: 2, pollMs: 1 });
    pool.start();
    await expect.poll(() => queries).toBe(1);
    let stopped = false;
    const stopping = pool.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    release([]);
    await stopping;
    expect(stopped).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(queries).toBe(1);
  });
});

import { describe, expect, it, vi } from "vitest";
import { EXTERNAL_GROWTH_BYTES, LARGE_EXCHANGE_BYTES, memoryCollector } from "#local/memory.ts";

const MB = 1024 * 1024;

/** A collector over a fake external-memory gauge; gc drops the gauge to 20 MB. */
function harness() {
  let external = 0;
  const gc = vi.fn(() => (external = 20 * MB));
  const tasks: Array<() => void> = [];
  const afterExchange = memoryCollector(
    gc,
    () => external,
    (task) => tasks.push(task),
  );
  const answered = (bytes: number, externalNow: number) => {
    external = externalNow;
    afterExchange(bytes);
    for (const task of tasks.splice(0)) task();
  };
  return { gc, afterExchange, answered, tasks };
}

describe("local server memory collector", () => {
  it("collects after a large request once external memory grew 48 MB since the last collection", () => {
    const { gc, answered } = harness();
    answered(LARGE_EXCHANGE_BYTES, EXTERNAL_GROWTH_BYTES - 1);
    expect(gc).not.toHaveBeenCalled();
    answered(10 * MB, EXTERNAL_GROWTH_BYTES);
    expect(gc).toHaveBeenCalledTimes(1);
    answered(10 * MB, 20 * MB + EXTERNAL_GROWTH_BYTES - 1); // measured from the 20 MB after the collection
    expect(gc).toHaveBeenCalledTimes(1);
    answered(10 * MB, 20 * MB + EXTERNAL_GROWTH_BYTES);
    expect(gc).toHaveBeenCalledTimes(2);
  });

  it("ignores small requests, and schedules one check at a time", () => {
    const { gc, afterExchange, answered, tasks } = harness();
    answered(LARGE_EXCHANGE_BYTES - 1, 500 * MB);
    expect(gc).not.toHaveBeenCalled();
    afterExchange(LARGE_EXCHANGE_BYTES);
    afterExchange(LARGE_EXCHANGE_BYTES);
    expect(tasks).toHaveLength(1);
  });

  it("does nothing without gc", () => {
    const tasks: Array<() => void> = [];
    memoryCollector(
      undefined,
      () => 1e12,
      (task) => tasks.push(task),
    )(100 * MB);
    expect(tasks).toHaveLength(0);
  });
});

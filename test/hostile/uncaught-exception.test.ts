// A request whose code throws outside any promise chain (the shape of an old busboy bug)
// must not end the local server: the request that threw gets a 500 in the error layout, the
// others carry on. The fault is injected through the handler table, as no real one is left.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi("hostile-uncaught", { SIGNET_TABLE: "signet-hostile-uncaught", SIGNET_CONVERSION_MODE: "oneshot" });
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("an uncaught exception inside one request", () => {
  it("answers that request 500 and keeps serving", async () => {
    const { entryHandlers } = await import("#local/handlers.ts");
    const { uncaughtExceptionListener } = await import("#adapters/process-guard.ts");
    const original = entryHandlers.info!;
    // vitest's own listener would fail the run on purpose; only the server's guard listens here.
    const others = process.listeners("uncaughtException").filter((listener) => listener !== uncaughtExceptionListener);
    for (const listener of others) process.off("uncaughtException", listener);
    entryHandlers.info = () =>
      new Promise(() => {
        setImmediate(() => {
          throw new Error("thrown in a callback, outside every promise");
        });
      });
    try {
      const response = await fetch(`${api.url}/`);
      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR", error: "Internal Server Error" });
    } finally {
      entryHandlers.info = original;
      for (const listener of others) process.on("uncaughtException", listener);
    }
    const health = await fetch(`${api.url}/v1/health`);
    expect(health.status).toBe(200);
  });
});

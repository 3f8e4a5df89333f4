// A request whose code throws outside any promise chain (the shape of an old busboy bug)
// must not end the local server: the request that threw gets a 500 in the error layout, the
// others carry on. The fault is injected as the server's document fetcher, as no real one is left.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uncaughtExceptionListener } from "#adapters/process-guard.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

// Fetching a document by URL throws in a callback, outside every promise.
const throwingFetcher: Fetcher = {
  fetch: () =>
    new Promise(() => {
      setImmediate(() => {
        throw new Error("thrown in a callback, outside every promise");
      });
    }),
};

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi(
    "hostile-uncaught",
    { SIGNET_TABLE: "signet-hostile-uncaught", SIGNET_CONVERSION_MODE: "oneshot" },
    { parts: "keys", overrides: { safeFetcher: throwingFetcher } },
  );
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("an uncaught exception inside one request", () => {
  it("answers that request 500 and keeps serving", async () => {
    const key = await obtainKey(api, "hostile-uncaught");
    // vitest's own listener would fail the run on purpose; only the server's guard listens here.
    const others = process.listeners("uncaughtException").filter((listener) => listener !== uncaughtExceptionListener);
    for (const listener of others) process.off("uncaughtException", listener);
    try {
      const response = await api.postJson("/v1/annotate/fields", { document: { url: "https://example.com/template.docx" } }, key);
      expect(response.status).toBe(500);
      expect(response.json).toMatchObject({ code: "INTERNAL_ERROR", error: "Internal Server Error" });
    } finally {
      for (const listener of others) process.on("uncaughtException", listener);
    }
    const info = await fetch(`${api.url}/`);
    expect(info.status).toBe(200);
  });
});

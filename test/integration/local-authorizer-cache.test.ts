// The local server reuses an allowing API-key decision per Authorization header, as API Gateway
// caches the authorizer's answer (resultsCacheTtl 60 s in the stack) when
// SIGNET_AUTHORIZER_CACHE_SECONDS is set (the local default, 0, asks the store every time so a
// revoked key is refused at once): a key seen once keeps working while the key store is down; a
// key never seen gets 503.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;
let seen: string;
let unseen: string;

beforeAll(async () => {
  api = await startLocalApi("authorizer-cache", {
    SIGNET_TABLE: "signet-authorizer-cache",
    SIGNET_CONVERSION_MODE: "oneshot",
    SIGNET_AUTHORIZER_CACHE_SECONDS: "60",
  });
  seen = await obtainKey(api, "cache-seen");
  unseen = await obtainKey(api, "cache-unseen");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const sign = (key: string) => api.postJson("/v1/sign", {}, key);

describe("authorizer decision cache", () => {
  it("reuses an allowing decision; asks the store for a header it has not seen", async () => {
    // {} passes the authorizer and fails sign's own validation: 400 means the key was accepted.
    expect((await sign(seen)).status).toBe(400);
    await api.standIns.close(); // the key store is gone from here on
    expect((await sign(seen)).status).toBe(400);
    const fresh = await sign(unseen);
    expect(fresh.status).toBe(503);
    expect(fresh.json.code).toBe("SERVICE_UNAVAILABLE");
  });
});

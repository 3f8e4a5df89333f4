// GET /v1/health reports LibreOffice's readiness: this file's server is configured with a
// SIGNET_SOFFICE that does not exist, so the probe must answer 503 naming the part and the fix.
// (The up case, checks.libreoffice "up", is asserted against the real entry in local-main.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi("health", { SIGNET_TABLE: "signet-health", SIGNET_SOFFICE: "/nonexistent/soffice" });
}, 180_000);

afterAll(async () => {
  await api?.close();
});

describe("GET /v1/health without LibreOffice", () => {
  it("answers 503 SERVICE_UNAVAILABLE with a detail naming libreoffice and SIGNET_SOFFICE", async () => {
    const response = await fetch(`${api.url}/v1/health`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      error: "Service Unavailable",
      message: "Not ready: libreoffice is down; see details.",
      details: [{ field: "libreoffice", issue: expect.stringContaining("SIGNET_SOFFICE=/nonexistent/soffice") }],
    });
  });

  it("still answers what needs no LibreOffice (verify key)", async () => {
    expect((await fetch(`${api.url}/v1/verify/key`)).status).toBe(200);
  });
});

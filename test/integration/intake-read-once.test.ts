// One DOCX's zip directory is parsed once per request through the real local server: /v1/convert
// (intake, its checks, the LibreOffice adapter), /v1/sign (resolveDocument hands its directory to
// intake, intake to the converter) and /v1/annotate (resolveDocument hands it to the template's
// package). Before documents/ it was 4 and 5 times, annotate's twice (issue 37).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZipContainer } from "#domain/shared/zip-container.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;
let key: string;
beforeAll(async () => {
  api = await startLocalApi("read-once", { SIGNET_TABLE: "signet-read-once", SIGNET_CONVERSION_CONCURRENCY: "1", SIGNET_KEY_RATE_LIMIT: "1000" });
  key = await obtainKey(api, "read-once");
}, 120_000);
afterAll(async () => {
  await api?.close();
});

describe("a DOCX's zip directory is read once per request", () => {
  it("POST /v1/convert?from=docx: one parse", async () => {
    const form = new FormData();
    form.append("file", new Blob([fixtureDocx()]), "contract.docx");
    const before = ZipContainer.directoriesRead;
    const response = await fetch(`${api.url}/v1/convert?from=docx&to=pdf`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 5)
        .toString("latin1"),
    ).toBe("%PDF-");
    expect(ZipContainer.directoriesRead - before).toBe(1);
  }, 120_000);

  it("POST /v1/sign with a DOCX: one parse", async () => {
    const before = ZipContainer.directoriesRead;
    const { status, json } = await api.postJson(
      "/v1/sign",
      {
        document: { base64: fixtureDocx().toString("base64") },
        signer: { name: "Ada Lovelace", email: "ada@example.com" },
        auditTrail: [{ type: "submit", timestamp: "2026-11-25T10:00:00Z" }],
        certificate: { enabled: false },
      },
      key,
    );
    expect(status).toBe(200);
    expect(json.document.contentType).toBe("application/pdf");
    expect(ZipContainer.directoriesRead - before).toBe(1);
  }, 120_000);

  it("POST /v1/annotate (DOCX out): one parse", async () => {
    const before = ZipContainer.directoriesRead;
    const { status, json } = await api.postJson("/v1/annotate", { document: { base64: fixtureDocx().toString("base64") }, fields: [] }, key);
    expect(status).toBe(200);
    expect(json.document.contentType).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(ZipContainer.directoriesRead - before).toBe(1);
  }, 120_000);
});

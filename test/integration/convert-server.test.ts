// POST /v1/convert over HTTP through the local server, with a real API key, as curl sends it.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureDocx, fixtureText } from "#test/helpers/convert-fixtures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";

const run = promisify(execFile);

let api: LocalApi;
let key: string;

beforeAll(async () => {
  // Config is read at import: startLocalApi sets the environment before it imports the server.
  api = await startLocalApi("convert-server", { SIGNET_TABLE: "signet-convert-server", SIGNET_CONVERSION_CONCURRENCY: "1" });
  key = await obtainKey(api, "convert");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("POST /v1/convert over HTTP", () => {
  it("converts a DOCX sent with curl -F and a real key", async () => {
    const input = join(api.dataDir, "contract.docx");
    const output = join(api.dataDir, "contract.pdf");
    writeFileSync(input, fixtureDocx());
    const { stdout } = await run("curl", [
      "-sS",
      "-X",
      "POST",
      `${api.url}/v1/convert?from=docx`,
      "-H",
      `Authorization: Bearer ${key}`,
      "-F",
      `file=@${input}`,
      "-o",
      output,
      "-D",
      "-",
      "-w",
      "%{http_code}",
    ]);
    expect(stdout.trim().endsWith("200")).toBe(true);
    expect(stdout).toMatch(/content-type: application\/pdf/i);
    expect(stdout).toMatch(/content-disposition: attachment; filename="contract\.pdf"/i);
    expect(readFileSync(output).subarray(0, 5).toString()).toBe("%PDF-");
    const text = await pdfText(output);
    expect(text).toContain(fixtureText.title);
  });

  it("refuses a request without a key before converting anything", async () => {
    const form = new FormData();
    form.append("file", new Blob([fixtureDocx()]), "contract.docx");
    const response = await fetch(`${api.url}/v1/convert?from=docx`, { method: "POST", body: form });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe("AUTHENTICATION_ERROR");
  });

  it("answers 422 INVALID_DOCUMENT for a file that is not a DOCX, sent as fetch FormData", async () => {
    const form = new FormData();
    form.append("file", new Blob(["just some text"]), "notes.docx");
    const response = await fetch(`${api.url}/v1/convert?from=docx`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { code: string }).code).toBe("INVALID_DOCUMENT");
  });
});

// POST /v1/convert over HTTP through the local server, with a real API key, as curl sends it.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "#local/server.ts";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { fixtureDocx, fixtureText } from "#test/helpers/convert-fixtures.ts";
import { latestCode, uniqueEmail } from "#test/helpers/keys-harness.ts";

const run = promisify(execFile);

// Config is read at import: set the environment first, then import the server.
process.env.SIGNET_TABLE = "signet-convert-server";
process.env.SIGNET_CONVERSION_CONCURRENCY = "1";

const dir = mkdtempSync(join(tmpdir(), "signet-convert-server-"));
let standIns: StandIns;
let server: LocalServer;
let key: string;
let closeConverter: () => Promise<void>;

beforeAll(async () => {
  standIns = await startStandIns({ dataDir: dir, sesPort: 0 });
  Object.assign(process.env, standIns.env);
  const { ensureKeyTable, keyStoreOptions } = await import("#adapters/dynamodb-key-store.ts");
  await ensureKeyTable(keyStoreOptions());
  const { startLocalServer } = await import("#local/server.ts");
  const { converter } = await import("#adapters/libreoffice-converter.ts");
  closeConverter = () => converter.close();
  server = await startLocalServer({ port: 0, host: "127.0.0.1" });
  const email = uniqueEmail("convert");
  await fetch(`${server.url}/v1/auth/register?email=${encodeURIComponent(email)}`);
  const code = await latestCode(standIns.env.SIGNET_SES_ENDPOINT!, email);
  key = ((await (await fetch(`${server.url}/v1/auth/verify?email=${encodeURIComponent(email)}&code=${code}`)).json()) as { key: string }).key;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await closeConverter?.();
  await standIns?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /v1/convert over HTTP", () => {
  it("converts a DOCX sent with curl -F and a real key", async () => {
    const input = join(dir, "contract.docx");
    const output = join(dir, "contract.pdf");
    writeFileSync(input, fixtureDocx());
    const { stdout } = await run("curl", [
      "-sS", "-X", "POST", `${server.url}/v1/convert?from=docx`, "-H", `Authorization: Bearer ${key}`,
      "-F", `file=@${input}`, "-o", output, "-D", "-", "-w", "%{http_code}",
    ]);
    expect(stdout.trim().endsWith("200")).toBe(true);
    expect(stdout).toMatch(/content-type: application\/pdf/i);
    expect(stdout).toMatch(/content-disposition: attachment; filename="contract\.pdf"/i);
    expect(readFileSync(output).subarray(0, 5).toString()).toBe("%PDF-");
    const { stdout: text } = await run("pdftotext", [output, "-"]);
    expect(text).toContain(fixtureText.title);
  });

  it("refuses a request without a key before converting anything", async () => {
    const form = new FormData();
    form.append("file", new Blob([fixtureDocx()]), "contract.docx");
    const response = await fetch(`${server.url}/v1/convert?from=docx`, { method: "POST", body: form });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe("AUTHENTICATION_ERROR");
  });

  it("answers 422 INVALID_DOCUMENT for a file that is not a DOCX, sent as fetch FormData", async () => {
    const form = new FormData();
    form.append("file", new Blob(["just some text"]), "notes.docx");
    const response = await fetch(`${server.url}/v1/convert?from=docx`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { code: string }).code).toBe("INVALID_DOCUMENT");
  });
});

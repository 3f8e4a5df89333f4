import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pkijs from "pkijs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oids } from "#domain/cades-signature.ts";
import { readElement } from "#domain/der.ts";
import type { LocalServer } from "#local/server.ts";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { latestCode, uniqueEmail } from "#test/helpers/keys-harness.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { makePdf, pdfPageCount, pdfsig, pdftotext, qpdfCheck, startLoopbackTsa, type LoopbackTsa } from "#test/helpers/sign-tools.ts";

// Config is read at import: set the environment first (a TSA on loopback: PAdES B-T), then import the server.
const dataDir = mkdtempSync(join(tmpdir(), "signet-sign-server-"));
process.env.SIGNET_TABLE = "signet-sign-server";
process.env.SIGNET_DATA_DIR = dataDir;
process.env.SIGNET_CONVERSION_MODE = "oneshot";

let tsa: LoopbackTsa;
let standIns: StandIns;
let server: LocalServer;
let key: string;
let closeConverter: () => Promise<void>;
let input: Buffer;

beforeAll(async () => {
  tsa = await startLoopbackTsa();
  process.env.SIGNET_TSA_URL = tsa.url;
  standIns = await startStandIns({ dataDir, sesPort: 0 });
  Object.assign(process.env, standIns.env);
  const { ensureKeyTable, keyStoreOptions } = await import("#adapters/dynamodb-key-store.ts");
  await ensureKeyTable(keyStoreOptions());
  const { identityStore } = await import("#adapters/identity.ts");
  await identityStore.load();
  const { startLocalServer } = await import("#local/server.ts");
  const { converter } = await import("#adapters/libreoffice-converter.ts");
  closeConverter = () => converter.close();
  server = await startLocalServer({ port: 0, host: "127.0.0.1" });
  const email = uniqueEmail("sign");
  await fetch(`${server.url}/v1/auth/register?email=${encodeURIComponent(email)}`);
  const code = await latestCode(standIns.env.SIGNET_SES_ENDPOINT!, email);
  key = ((await (await fetch(`${server.url}/v1/auth/verify?email=${encodeURIComponent(email)}&code=${code}`)).json()) as { key: string }).key;
  input = await makePdf(3);
}, 90_000);

afterAll(async () => {
  await server?.close();
  await closeConverter?.();
  await standIns?.close();
  await tsa?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function post(path: string, body: unknown, auth = true) {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

const signBody = (document: { base64: string }) => ({
  document,
  signer: { name: "Ada Lovelace", email: "ada@example.com", ip: "203.0.113.7", userAgent: "Mozilla/5.0" },
  auditTrail: [
    { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
    { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
  ],
  eventId: "evt_http",
});

describe("sign and verify over HTTP", () => {
  it("signs a PDF PAdES B-T with the loopback TSA; verify reports it intact and trusted", async () => {
    const before = tsa.requests;
    const { status, json } = await post("/v1/sign", signBody({ base64: input.toString("base64") }));
    expect(status).toBe(200);
    expect(json.document.contentType).toBe("application/pdf");
    const signed = Buffer.from(json.document.base64 as string, "base64");
    expect(tsa.requests).toBe(before + 1);
    expect(signed.subarray(0, input.length).equals(input)).toBe(true);
    const [signature] = await pdfsig(signed);
    expect(signature).toMatchObject({ type: "ETSI.CAdES.detached", valid: true, totalDocumentSigned: true });
    expect(qpdfCheck(signed).ok).toBe(true);

    // The CMS carries the timestamp token as an unsigned attribute.
    const text = signed.toString("latin1");
    const at = text.lastIndexOf("/Contents <");
    const padded = Buffer.from(text.slice(at + 11, text.indexOf(">", at)), "hex");
    const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(padded.subarray(0, readElement(padded, 0).end)).content });
    expect(signedData.signerInfos[0]!.unsignedAttrs?.attributes.map((attribute) => attribute.type)).toEqual([oids.signatureTimeStampToken]);
    expect(await pdftotext(signed, 4)).toContain("B-T");

    const verified = await post("/v1/verify", { document: { base64: json.document.base64 } }, false);
    expect(verified.status).toBe(200);
    expect(verified.json).toMatchObject({ valid: true, document: { pages: 4 } });
    expect(verified.json.signatures[0]).toMatchObject({ integrity: "ok", trusted: true, modifiedAfter: false });
    expect(verified.json.signatures[0].timestamp).toMatchObject({ imprintValid: true, authority: "CN=Signet Test TSA" });
    expect(verified.json.signer).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" });
  }, 30_000);

  it("publishes the signing certificate on GET /v1/verify/key", async () => {
    const response = await fetch(`${server.url}/v1/verify/key`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, string>;
    expect(body.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(body.algorithm).toBe("RSA-3072 with SHA-256");
    expect(body.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(body.issuer).toBe("CN=Signet Local Signing");
    expect(JSON.stringify(body)).not.toMatch(/PRIVATE KEY/);
  });

  it("signs DOCX input after converting it with LibreOffice", async () => {
    const docx = buildDocx({ body: p(run("Statement of work for the DOCX signing test")) });
    const { status, json } = await post("/v1/sign", signBody({ base64: docx.toString("base64") }));
    expect(status).toBe(200);
    const signed = Buffer.from(json.document.base64 as string, "base64");
    expect((await pdfsig(signed))[0]!.valid).toBe(true);
    expect(await pdftotext(signed, 1, 1)).toContain("Statement of work");
    expect(await pdfPageCount(signed)).toBe(2);
  }, 90_000);

  it.each([
    ["unknown signer member", { signer: { name: "Ada", email: "ada@example.com", role: "x" } }, 400, "VALIDATION_ERROR"],
    ["signer.ip not an IP", { signer: { name: "Ada", email: "ada@example.com", ip: "999.1.1.1" } }, 400, "VALIDATION_ERROR"],
    ["timestamp not ISO-8601", { auditTrail: [{ type: "submit", timestamp: "yesterday" }] }, 400, "VALIDATION_ERROR"],
    ["no submit event", { auditTrail: [{ type: "ready", timestamp: "2026-11-22T09:55:00Z" }] }, 422, "MISSING_SUBMIT_EVENT"],
    ["broken PDF", { document: { base64: Buffer.from("%PDF-1.7\ngarbage").toString("base64") } }, 422, "INVALID_DOCUMENT"],
  ])("%s -> %i %s", async (_name, change, status, code) => {
    const answer = await post("/v1/sign", { ...signBody({ base64: input.toString("base64") }), ...change });
    expect(answer.status).toBe(status);
    expect(answer.json.code).toBe(code);
  });

  it("refuses to sign without a key", async () => {
    const answer = await post("/v1/sign", signBody({ base64: input.toString("base64") }), false);
    expect(answer.status).toBe(401);
  });
});

// POST /v1/metadata through the local server: read, write kept in step (pdfinfo reads the Info
// dictionary, the XMP packet read back says the same, other XMP properties kept), and on a signed
// PDF an incremental update that Signet's verify and pyHanko both accept; where pyHanko refuses a
// metadata update (an existing XMP packet that is not well-formed) the write is 409 unless the
// signatures are dropped: both verdicts checked with pyHanko itself.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { PDF, PdfName, PdfStream } from "@libpdf/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readXmpInfo } from "#domain/pdf-tools/metadata-xmp.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { contractPdf, danglingContents, inflateBomb, inspect } from "#test/helpers/pdf-attacks/revisions.ts";
import { pdfMetadata } from "#test/helpers/pdf-tools.ts";
import { holdsInPyhanko, pyhankoValidate } from "#test/helpers/signature-checks.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const run = promisify(execFile);
let api: LocalApi;
let key: string;

beforeAll(async () => {
  api = await startLocalApi("metadata", { SIGNET_TABLE: "signet-metadata", SIGNET_SOFFICE: "/nonexistent/soffice" });
  key = await obtainKey(api, "metadata");
}, 180_000);

afterAll(async () => {
  await api?.close();
});

const metadata = (document: Buffer, body: Record<string, unknown> = {}) =>
  api.postJson("/v1/metadata", { document: { base64: document.toString("base64") }, ...body }, key);
const pdfOf = (json: Record<string, any>) => Buffer.from(json.document.base64, "base64");

/**
 * afterBlocking runs a synchronous check (pyHanko) and then lets the event loop turn: blocked, the
 * in-process server's keep-alive timers fire late and close idle connections only once it runs
 * again; the next fetch must see them closed, not reuse one (ECONNRESET).
 */
async function afterBlocking<T>(check: () => T): Promise<T> {
  const result = check();
  await new Promise((resolve) => setTimeout(resolve, 0));
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  return result;
}

async function pdfinfo(pdf: Buffer): Promise<Record<string, string>> {
  const path = join(scratchDir("metadata"), "in.pdf");
  writeFileSync(path, pdf);
  const { stdout } = await run("pdfinfo", ["-enc", "UTF-8", "-isodates", path]);
  return Object.fromEntries(stdout.split("\n").map((line) => [line.slice(0, line.indexOf(":")).trim(), line.slice(line.indexOf(":") + 1).trim()]));
}

async function sign(pdf: Buffer): Promise<Buffer> {
  const body = {
    document: { base64: pdf.toString("base64") },
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
  };
  const { status, json } = await api.postJson("/v1/sign", body, key);
  expect(status, JSON.stringify(json)).toBe(200);
  return Buffer.from(json.document.base64, "base64");
}

/** withXmp stores `xml` as the catalog's /Metadata (libpdf, whole rewrite). */
async function withXmp(pdf: Buffer, xml: string): Promise<Buffer> {
  const doc = await PDF.load(pdf);
  doc
    .getCatalog()
    .set("Metadata", doc.register(PdfStream.fromDict({ Type: PdfName.of("Metadata"), Subtype: PdfName.of("XML") }, new TextEncoder().encode(xml))));
  return Buffer.from(await doc.save({ useXRefStream: false }));
}

const TITLE = "Vertrag — Ünïcødé 契約 عقد";

describe("POST /v1/metadata", () => {
  it("reads the title a PDF holds, no XMP, no custom keys", async () => {
    const { status, json } = await metadata(await makePdf(1, { title: "Plain title" }));
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json.metadata).toMatchObject({ title: "Plain title", custom: {} });
    expect(json.document).toBeUndefined();
  });

  it("writes Info and XMP in step: pdfinfo and the XMP read back agree, other XMP properties are kept", async () => {
    const input = await withXmp(
      await makePdf(1),
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:dc="http://purl.org/dc/elements/1.1/" pdfaid:part="2" pdfaid:conformance="B"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Old</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>',
    );
    const set = { title: TITLE, author: "Ada Lovelace", keywords: "contract, 2026", creationDate: "2026-11-01T10:00:00Z", custom: { ContractId: "C-42" } };
    const { status, json } = await metadata(input, { set });
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json).toMatchObject({
      incremental: false,
      droppedSignatures: [],
      metadata: { title: TITLE, author: "Ada Lovelace", custom: { ContractId: "C-42" } },
    });
    const output = pdfOf(json);
    const info = await pdfinfo(output);
    expect(info).toMatchObject({ Title: TITLE, Author: "Ada Lovelace", Keywords: "contract, 2026", CreationDate: "2026-11-01T10:00:00Z" });
    const xmp = await pdfMetadata(output);
    expect(readXmpInfo(xmp)).toMatchObject({ title: TITLE, author: "Ada Lovelace", keywords: "contract, 2026", creationDate: "2026-11-01T10:00:00Z" });
    expect(xmp).toContain('pdfaid:part="2"');
    expect(xmp).not.toContain(">Old<");
    // Read again: the answer of a read is what the write answered.
    const read = await metadata(output);
    expect(read.json.metadata).toEqual(json.metadata);
  });

  it("on a signed PDF appends an update that verify and pyHanko accept", { timeout: 60_000 }, async () => {
    const signed = await sign(await makePdf(1));
    const { status, json } = await metadata(signed, { set: { title: "Signed contract", custom: { Reviewed: "yes" } } });
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json.incremental).toBe(true);
    const output = pdfOf(json);
    expect(output.subarray(0, signed.length).equals(signed)).toBe(true);
    expect((await pdfinfo(output)).Title).toBe("Signed contract");
    const report = await api.postJson("/v1/verify", { document: { base64: output.toString("base64") } });
    expect(report.json.signatures[0]).toMatchObject({ integrity: "ok", modificationLevel: "lta", changesPermitted: true });
    const pyhanko = await afterBlocking(() => pyhankoValidate(output));
    expect(pyhanko.signatures.every(holdsInPyhanko), pyhanko.output).toBe(true);
  });

  it("answers 409 where pyHanko refuses the update (a malformed XMP packet), and drops the signature when asked", { timeout: 60_000 }, async () => {
    const signed = await sign(await withXmp(await makePdf(1, { classicXref: true }), "<x:xmpmeta><unclosed></x:xmpmeta>"));
    const refused = await metadata(signed, { set: { title: "New" } });
    expect(refused.status, JSON.stringify(refused.json)).toBe(409);
    expect(refused.json).toMatchObject({ code: "WOULD_INVALIDATE_SIGNATURES", details: [{ field: "document", issue: 'signed signature field "Signet_1"' }] });
    // The verdict the 409 stands for: the same update made by hand is one pyHanko refuses.
    const doc = await PDF.load(signed);
    const packet = '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>';
    doc
      .getCatalog()
      .set("Metadata", doc.register(PdfStream.fromDict({ Type: PdfName.of("Metadata"), Subtype: PdfName.of("XML") }, new TextEncoder().encode(packet))));
    const byHand = Buffer.from(await doc.save({ incremental: true }));
    expect((await afterBlocking(() => pyhankoValidate(byHand))).allHold).toBe(false);
    const dropped = await metadata(signed, { set: { title: "New" }, dropSignatures: true });
    expect(dropped.status, JSON.stringify(dropped.json)).toBe(200);
    expect(dropped.json).toMatchObject({ incremental: false, droppedSignatures: ["Signet_1"], metadata: { title: "New" } });
    const report = await api.postJson("/v1/verify", { document: { base64: dropped.json.document.base64 } });
    expect(report.json.signatures).toHaveLength(0);
  });

  it.each([
    ["an xmp that is not XML", { xmp: "<x:xmpmeta>" }, 400],
    ["an xmp with a DTD", { xmp: '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>' }, 400],
    ["a date that is no date", { set: { modDate: "yesterday" } }, 400],
  ])("refuses %s", async (_case, body, statusCode) => {
    const { status, json } = await metadata(await makePdf(1), body);
    expect(status, JSON.stringify(json)).toBe(statusCode);
    expect(json.code).toBe("VALIDATION_ERROR");
  });

  it("answers hostile PDFs with a clean 4xx or a readable answer, never 500", { timeout: 60_000 }, async () => {
    const target = await inspect(await contractPdf());
    const hostile = { "inflate bomb": inflateBomb(target, 80), "dangling contents": danglingContents(target), "not a PDF": Buffer.from("%PDF-1.7\nnothing") };
    for (const [name, bytes] of Object.entries(hostile)) {
      for (const body of [{}, { set: { title: "x" } }]) {
        const { status, json } = await metadata(bytes, body);
        expect(status < 500, `${name}: ${status} ${JSON.stringify(json)}`).toBe(true);
      }
    }
  });
});

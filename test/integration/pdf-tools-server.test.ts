// POST /v1/merge, /v1/split and /v1/pages through the local server (issue 40, items 1, 2 and 6),
// the outputs checked with poppler (pdfinfo, pdftotext), qpdf and MuPDF, and the signature guard
// played as the caller who would otherwise lose a signature without being told.
import { readFileSync } from "node:fs";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PDF } from "@libpdf/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readZipDirectory, readZipEntry } from "#domain/shared/zip-container.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { pdfInfo, pdfPageCount, pdfsig, pdfText, qpdfCheck } from "#test/helpers/pdf-tools.ts";
import { toolPdf } from "#test/helpers/tool-pdfs.ts";

const run = promisify(execFile);
const ZIP_LIMITS = { maxEntries: 10, maxUncompressedBytes: 10_000_000 };
let api: LocalApi;
let key: string;
let alpha: Buffer;
let beta: Buffer;

beforeAll(async () => {
  api = await startLocalApi("pdf-tools", { SIGNET_TABLE: "signet-pdf-tools" });
  key = await obtainKey(api, "pdf-tools");
  alpha = await toolPdf("Alpha", 3);
  beta = await toolPdf("Beta", 2);
}, 180_000);

afterAll(async () => {
  await api?.close();
});

const b64 = (bytes: Buffer) => ({ base64: bytes.toString("base64") });
const pdfOf = (json: Record<string, any>) => Buffer.from(json.document.base64 as string, "base64");
/** pageTexts is each page's text (pdftotext), trimmed. */
const pageTexts = async (pdf: Buffer) =>
  (await pdfText(pdf))
    .split("\f")
    .map((page) => page.replace(/\s+/g, " ").trim())
    .filter(Boolean);

async function postRaw(path: string, body: unknown): Promise<Response> {
  return fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** outline is MuPDF's bookmark listing: one line per bookmark, its depth by leading bars. */
async function outline(pdf: Buffer): Promise<string[]> {
  const path = join(mkdtempSync(join(tmpdir(), "signet-outline-")), "in.pdf");
  writeFileSync(path, pdf);
  const { stdout } = await run("mutool", ["show", path, "outline"]);
  return stdout
    .trim()
    .split("\n")
    .map((line) =>
      line
        .replace(/\t#.*$/, "")
        .replace(/\s+/g, " ")
        .trim(),
    );
}

describe("POST /v1/merge", () => {
  it("joins the inputs in order with their page ranges; bookmarks under one entry per input; fields and destinations renamed apart", async () => {
    const { status, json } = await api.postJson(
      "/v1/merge",
      {
        documents: [
          { document: b64(alpha), title: "First" },
          { document: b64(beta), pages: "2-1" },
        ],
      },
      key,
    );
    expect(status, JSON.stringify(json)).toBe(200);
    const merged = pdfOf(json);
    expect(json.pageCount).toBe(5);
    expect(await pdfPageCount(merged)).toBe(5);
    expect((await qpdfCheck(merged)).ok).toBe(true);
    expect(await pageTexts(merged)).toEqual(["Alpha page 1 Alpha", "Alpha page 2", "Alpha page 3", "Beta page 2", "Beta page 1 Beta"]);
    expect(await outline(merged)).toEqual(['- "First"', '| "Alpha 1"', '| "Alpha 2"', '| "Alpha 3"', '- "Document 2"', '| "Beta 1"', '| "Beta 2"']);
    expect(json.renamedFields).toEqual([{ from: "name", to: "name#2" }]);
    expect(json.renamedDestinations).toEqual([
      { from: "page-1", to: "page-1#2" },
      { from: "page-2", to: "page-2#2" },
    ]);
    const fields = (await PDF.load(merged)).getForm()!.getFields();
    expect(fields.map((field) => [field.name, (field as unknown as { getValue(): string }).getValue()])).toEqual([
      ["name", "Alpha"],
      ["name#2", "Beta"],
    ]);
  });

  it("converts a DOCX input first, as sign does", async () => {
    const docx = readFileSync("examples/files/contract.docx");
    const { status, json } = await api.postJson("/v1/merge", { documents: [{ document: b64(docx) }, { document: b64(alpha), pages: "1" }] }, key);
    expect(status, JSON.stringify(json)).toBe(200);
    const merged = pdfOf(json);
    const pages = await pdfPageCount(merged);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect((await pageTexts(merged)).at(-1)).toBe("Alpha page 1 Alpha");
  }, 120_000);

  it("gives the output its first input's title, author, subject and keywords, and no made-up ones", async () => {
    const titled = await PDF.load(new Uint8Array(alpha));
    titled.setTitle("Alpha report");
    titled.setAuthor("Ada Lovelace");
    const first = Buffer.from(await titled.save());
    const withTitle = await api.postJson("/v1/merge", { documents: [{ document: b64(first) }, { document: b64(beta) }] }, key);
    expect(withTitle.status, JSON.stringify(withTitle.json)).toBe(200);
    expect(await pdfInfo(pdfOf(withTitle.json))).toMatchObject({ Title: "Alpha report", Author: "Ada Lovelace" });
    const bare = await makePdf(1);
    const without = await api.postJson("/v1/merge", { documents: [{ document: b64(bare) }, { document: b64(first) }] }, key);
    expect(without.status, JSON.stringify(without.json)).toBe(200);
    const fields = await pdfInfo(pdfOf(without.json));
    expect(fields.Title).toBeUndefined();
    expect(fields.Author).toBeUndefined();
  });

  it("refuses page ranges naming pages the input lacks, and a single document", async () => {
    const bad = await api.postJson("/v1/merge", { documents: [{ document: b64(alpha), pages: "2-9" }, { document: b64(beta) }] }, key);
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual([{ field: "documents.0.pages", issue: "page 9 does not exist (the document has 3 pages)" }]);
    expect((await api.postJson("/v1/merge", { documents: [{ document: b64(alpha) }] }, key)).status).toBe(400);
  });

  it("refuses an encrypted input with ENCRYPTED_DOCUMENT naming its member", async () => {
    const folder = mkdtempSync(join(tmpdir(), "signet-encrypted-"));
    writeFileSync(join(folder, "in.pdf"), beta);
    await run("qpdf", ["--encrypt", "user", "owner", "256", "--", join(folder, "in.pdf"), join(folder, "out.pdf")]);
    const encrypted = readFileSync(join(folder, "out.pdf"));
    const { status, json } = await api.postJson("/v1/merge", { documents: [{ document: b64(alpha) }, { document: b64(encrypted) }] }, key);
    expect(status).toBe(422);
    expect(json.code).toBe("ENCRYPTED_DOCUMENT");
    expect(json.details).toEqual([{ field: "documents.1.document.password", issue: expect.stringContaining("required") }]);
  });
});

describe("the signature guard on every tool", () => {
  let signed: Buffer;
  beforeAll(async () => {
    signed = signWithPyhanko(await makePdf(2, { classicXref: true }), { field: "Approval" });
  });

  const requests = (document: Buffer, drop?: boolean) =>
    [
      ["/v1/merge", { documents: [{ document: b64(alpha) }, { document: b64(document) }], ...(drop ? { dropSignatures: true } : {}) }, "documents.1.document"],
      ["/v1/split", { document: b64(document), every: 1, ...(drop ? { dropSignatures: true } : {}) }, "document"],
      [
        "/v1/pages",
        { document: b64(document), operations: [{ op: "rotate", pages: "1", degrees: 90 }], ...(drop ? { dropSignatures: true } : {}) },
        "document",
      ],
    ] as const;

  it("answers 409 WOULD_INVALIDATE_SIGNATURES naming the signature, and changes nothing", async () => {
    for (const [path, body, field] of requests(signed)) {
      const { status, json } = await api.postJson(path, body, key);
      expect(status, `${path} ${JSON.stringify(json)}`).toBe(409);
      expect(json.code).toBe("WOULD_INVALIDATE_SIGNATURES");
      expect(json.details).toEqual([{ field, issue: 'signed signature field "Approval"' }]);
    }
  });

  it("with dropSignatures removes them, says so in Signet-Dropped-Signatures, and leaves an empty signature field", async () => {
    for (const [path, body] of requests(signed, true)) {
      const response = await postRaw(path, body);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("signet-dropped-signatures"), path).toBe(path === "/v1/merge" ? "2%3AApproval" : "Approval");
      if (path === "/v1/split") continue;
      const json = (await response.json()) as Record<string, any>;
      const pdf = pdfOf(json);
      expect(JSON.stringify(await pdfsig(pdf))).not.toContain('"valid":true');
      expect(json.droppedSignatures).toEqual([path === "/v1/merge" ? "2:Approval" : "Approval"]);
    }
  });
});

describe("POST /v1/split", () => {
  it("answers a zip of parts by ranges, each part with its pages, bookmarks and fields", async () => {
    const response = await postRaw("/v1/split", { document: b64(alpha), ranges: ["1", "2-3", "3-1"] });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    const zip = Buffer.from(await response.arrayBuffer());
    const entries = readZipDirectory(zip, ZIP_LIMITS);
    expect(entries.map((entry) => entry.name)).toEqual(["part-001.pdf", "part-002.pdf", "part-003.pdf"]);
    const parts = entries.map((entry) => readZipEntry(zip, entry, 10_000_000));
    expect(await pageTexts(parts[0]!)).toEqual(["Alpha page 1 Alpha"]);
    expect(await pageTexts(parts[1]!)).toEqual(["Alpha page 2", "Alpha page 3"]);
    expect(await pageTexts(parts[2]!)).toEqual(["Alpha page 3", "Alpha page 2", "Alpha page 1 Alpha"]);
    for (const part of parts) expect((await qpdfCheck(part)).ok).toBe(true);
    expect(await outline(parts[1]!)).toEqual(['| "Alpha 2"', '| "Alpha 3"']);
    expect(
      (await PDF.load(parts[0]!))
        .getForm()
        ?.getFields()
        .map((field) => field.name),
    ).toEqual(["name"]);
    expect(
      (await PDF.load(parts[1]!))
        .getForm()
        ?.getFields()
        .map((field) => field.name) ?? [],
    ).toEqual([]);
  });

  it("cuts every N pages", async () => {
    const response = await postRaw("/v1/split", { document: b64(alpha), every: 2 });
    const zip = Buffer.from(await response.arrayBuffer());
    const entries = readZipDirectory(zip, ZIP_LIMITS);
    expect(await Promise.all(entries.map((entry) => pdfPageCount(readZipEntry(zip, entry, 10_000_000))))).toEqual([2, 1]);
  });
});

describe("POST /v1/pages", () => {
  it("applies delete, rotate and reorder in order", async () => {
    const { status, json } = await api.postJson(
      "/v1/pages",
      {
        document: b64(alpha),
        operations: [
          { op: "delete", pages: "2" },
          { op: "rotate", pages: "1", degrees: 270 },
          { op: "reorder", order: "2,1" },
        ],
      },
      key,
    );
    expect(status, JSON.stringify(json)).toBe(200);
    const pdf = pdfOf(json);
    const texts = await pageTexts(pdf);
    expect(texts[0]).toBe("Alpha page 3");
    expect(texts[1]).toContain("Alpha page 1");
    const rotations = (await PDF.load(pdf)).getPages().map((page) => page.rotation);
    expect(rotations).toEqual([0, 270]);
    expect((await qpdfCheck(pdf)).ok).toBe(true);
  });

  it("refuses a reorder that does not name every page once", async () => {
    const { status, json } = await api.postJson("/v1/pages", { document: b64(alpha), operations: [{ op: "reorder", order: "1,1,2" }] }, key);
    expect(status).toBe(400);
    expect(json.details[0].field).toBe("operations.0.order");
  });
});

// POST /v1/stamp through the local server: the stamp's text as poppler extracts it (Latin, Arabic,
// CJK), its pixels over and under the page content (pdftoppm), its opacity (/ExtGState), 1,000
// pages sharing one form XObject while /v1/health answers, and the signature rule: a PDF certified
// with P=3 gets /Stamp annotations in an incremental update that Signet's verify accepts; any other
// signed PDF, or page content, is 409 WOULD_INVALIDATE_SIGNATURES unless dropSignatures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodePng } from "#domain/shared/png.ts";
import { hugePdf } from "#test/helpers/huge-pdf.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { contractPdf, danglingContents, inflateBomb, inspect } from "#test/helpers/pdf-attacks/revisions.ts";
import { pdfImages, pdfText, qpdfUncompressed, renderPages } from "#test/helpers/pdf-tools.ts";
import { pyhankoValidate } from "#test/helpers/signature-checks.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";

let api: LocalApi;
let key: string;
let unsigned: Buffer;
let signed: Buffer;
// Certified by pyHanko (P=2, P=3) before the server starts: pyHanko runs synchronously, and a test
// process blocked for seconds lets the server close a kept-alive connection fetch then reuses.
let formFilling: Buffer;
let annotating: Buffer;

beforeAll(async () => {
  formFilling = signWithPyhanko(await makePdf(1, { classicXref: true }), { certify: 2 });
  annotating = signWithPyhanko(await makePdf(2, { classicXref: true }), { certify: 3 });
  api = await startLocalApi("stamp", { SIGNET_TABLE: "signet-stamp", SIGNET_SOFFICE: "/nonexistent/soffice" });
  key = await obtainKey(api, "stamp");
  unsigned = await makePdf(2);
  const signing = await api.postJson(
    "/v1/sign",
    {
      document: { base64: unsigned.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
    },
    key,
  );
  expect(signing.status, JSON.stringify(signing.json)).toBe(200);
  signed = Buffer.from(signing.json.document.base64, "base64");
}, 180_000);

afterAll(async () => {
  await api?.close();
});

const stamp = (document: Buffer, body: Record<string, unknown>) =>
  api.postJson("/v1/stamp", { document: { base64: document.toString("base64") }, ...body }, key);
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
// pdftotext wraps right-to-left text in embedding marks; the characters are what is checked.
const plain = (text: string) => text.replace(/[\u202a-\u202e\u200e\u200f]/g, "");

/** grayAt reads the gray value of a PGM (pdftoppm -gray at 50 dpi) at a point of an A4 page given in PDF points. */
function grayAt(pgm: Buffer, x: number, y: number): number {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString("latin1"))!;
  const width = Number(header[1]);
  const [column, row] = [Math.round((x * 50) / 72), Math.round(((842 - y) * 50) / 72)];
  return pgm[header[0].length + row * width + column]!;
}

async function bluePng(): Promise<string> {
  const rgba = new Uint8Array(16 * 16 * 4).map((_, index) => [0, 0, 255, 255][index % 4]!);
  return `data:image/png;base64,${(await encodePng(rgba, 16, 16)).toString("base64")}`;
}

describe("POST /v1/stamp on an unsigned PDF", () => {
  it.each([
    ["Latin", "CONFIDENTIAL"],
    ["Arabic", "سري للغاية"],
    ["CJK", "机密文件"],
  ])("writes a %s stamp into every page's content, extracted by pdftotext", async (_script, text) => {
    const { status, json } = await stamp(unsigned, { text: { value: text, size: 40 }, rotation: 45, opacity: 0.4 });
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json).toMatchObject({ mode: "content", pages: 2, droppedSignatures: [] });
    const output = pdfOf(json);
    for (const page of [1, 2]) expect(plain(await pdfText(output, { first: page, last: page }))).toContain(text);
    // The opacity is an /ExtGState (fill and stroke alpha), read in the uncompressed file.
    const qdf = await qpdfUncompressed(output);
    expect(qdf).toMatch(/\/Type \/ExtGState[\s\S]{0,80}\/ca 0\.4|\/ca 0\.4[\s\S]{0,80}\/Type \/ExtGState/);
  });

  it("draws a picture over the content, or under it (hidden by the page's rectangle, visible on blank paper)", async () => {
    const image = { value: await bluePng(), width: 40, height: 40 };
    const over = await stamp(unsigned, { image, opacity: 1, position: { x: 110, y: 440 }, pages: "1" });
    expect(over.status, JSON.stringify(over.json)).toBe(200);
    const under = await stamp(unsigned, { image, opacity: 1, position: { x: 110, y: 440 }, pages: "1", layer: "under" });
    const blank = await stamp(unsigned, { image, opacity: 1, position: { x: 380, y: 580 }, pages: "1", layer: "under" });
    const [overPage] = await renderPages(pdfOf(over.json), 1, 1);
    const [underPage] = await renderPages(pdfOf(under.json), 1, 1);
    const [blankPage] = await renderPages(pdfOf(blank.json), 1, 1);
    // Page 1's rectangle (60..260 x 400..520) is orange-red, gray ~117; the picture is blue, gray ~29.
    expect(grayAt(overPage!, 130, 460)).toBeLessThan(60);
    expect(grayAt(underPage!, 130, 460)).toBeGreaterThan(90);
    expect(grayAt(blankPage!, 400, 600)).toBeLessThan(60);
    // Only page 1 was asked for.
    expect(over.json.pages).toBe(1);
  });

  it("draws an SVG picture (sanitised, rasterised to PNG) with text under it", async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="30"><rect width="60" height="30" fill="#0000ff"/></svg>';
    const image = { value: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`, width: 60 };
    const { status, json } = await stamp(unsigned, { image, text: { value: "APPROVED", size: 20 }, opacity: 1, position: { x: 380, y: 560 }, pages: "2" });
    expect(status, JSON.stringify(json)).toBe(200);
    const output = pdfOf(json);
    // The picture and, for its alpha channel, a soft mask.
    expect((await pdfImages(output)).length).toBeGreaterThan(0);
    expect(await pdfText(output, { first: 2, last: 2 })).toContain("APPROVED");
    const [page] = await renderPages(output, 2, 2);
    expect(grayAt(page!, 380 + 30, 560 + 24 + 15)).toBeLessThan(60);
  });

  it("stamps 1,000 pages with one form XObject while /v1/health keeps answering", { timeout: 60_000 }, async () => {
    let stamped = false;
    const request = stamp(hugePdf(1000), { text: { value: "DRAFT", size: 30 } }).finally(() => {
      stamped = true;
    });
    let healthBefore = 0;
    while (!stamped) {
      const health = await fetch(`${api.url}/v1/health`);
      await health.arrayBuffer();
      if (!stamped) healthBefore++;
    }
    const { status, json } = await request;
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json.pages).toBe(1000);
    expect(healthBefore).toBeGreaterThan(0);
    const output = pdfOf(json);
    expect(plain(await pdfText(output, { first: 1000, last: 1000 }))).toContain("DRAFT");
    // One form for the stamp: every page paints the same object.
    const qdf = await qpdfUncompressed(output);
    const painted = new Set([...qdf.matchAll(/\/SignetStamp (\d+) 0 R/g)].map((match) => match[1]));
    expect(painted.size).toBe(1);
  });

  it.each([
    ["pages past the end", { text: { value: "X" }, pages: "3-4" }, 400, "VALIDATION_ERROR"],
    ["neither text nor image", { opacity: 0.5 }, 400, "VALIDATION_ERROR"],
    ["a picture that is no picture", { image: { value: "data:image/png;base64,aGVsbG8=" } }, 422, "INVALID_IMAGE"],
  ])("refuses %s", async (_case, body, statusCode, code) => {
    const { status, json } = await stamp(unsigned, body);
    expect(status, JSON.stringify(json)).toBe(statusCode);
    expect(json.code).toBe(code);
  });
});

describe("POST /v1/stamp on a signed PDF", () => {
  it("under a certification allowing annotations (P=3) adds /Stamp annotations in an incremental update that verify accepts", { timeout: 60_000 }, async () => {
    const certified = annotating;
    const { status, json } = await stamp(certified, { text: { value: "RECEIVED", size: 30 }, position: { anchor: "top-right" }, pages: "1" });
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json).toMatchObject({ mode: "annotation", pages: 1, droppedSignatures: [] });
    const output = pdfOf(json);
    expect(output.subarray(0, certified.length).equals(certified)).toBe(true);
    expect(await qpdfUncompressed(output)).toContain("/Subtype /Stamp");
    const report = await api.postJson("/v1/verify", { document: { base64: output.toString("base64") } });
    expect(report.status).toBe(200);
    expect(report.json.signatures).toHaveLength(1);
    expect(report.json.signatures[0]).toMatchObject({ integrity: "ok", modificationLevel: "annotations", docMdpPermission: 3, changesPermitted: true });
    // pyHanko 0.20.1 has no rule for new annotations and calls them OTHER even under P=3 (docs/api.md
    // names this difference); the signature itself is intact and valid there.
    const pyhanko = await afterBlocking(() => pyhankoValidate(output));
    expect(pyhanko.signatures.length, pyhanko.output).toBe(1);
    expect(pyhanko.signatures[0], pyhanko.output).toMatchObject({ intact: true, valid: true, modificationLevel: "OTHER" });
  });

  it("answers 409 naming the signature: no certification, P=2, or page content under P=3", async () => {
    const plainSigned = await stamp(signed, { text: { value: "COPY" } });
    expect(plainSigned.status, JSON.stringify(plainSigned.json)).toBe(409);
    expect(plainSigned.json).toMatchObject({
      code: "WOULD_INVALIDATE_SIGNATURES",
      details: [{ field: "document", issue: 'signed signature field "Signet_1"' }],
    });
    expect(plainSigned.json.message).toContain("holds 1 signature (Signet_1)");
    const p2 = await stamp(formFilling, { text: { value: "COPY" } });
    expect(p2.status, JSON.stringify(p2.json)).toBe(409);
    expect(p2.json.message).toContain("form filling only");
    const content = await stamp(annotating, { text: { value: "COPY" }, as: "content" });
    expect(content.status, JSON.stringify(content.json)).toBe(409);
    expect(content.json.message).toContain("in the page content");
  });

  it("with dropSignatures writes the page content, removes the signature and names it", async () => {
    const { status, json } = await stamp(signed, { text: { value: "COPY" }, dropSignatures: true });
    expect(status, JSON.stringify(json)).toBe(200);
    expect(json).toMatchObject({ mode: "content", droppedSignatures: ["Signet_1"] });
    const output = pdfOf(json);
    const report = await api.postJson("/v1/verify", { document: { base64: output.toString("base64") } });
    expect(report.json.signatures).toHaveLength(0);
    expect(await pdfText(output, { first: 1, last: 1 })).toContain("COPY");
  });
});

describe("POST /v1/stamp on hostile PDFs", () => {
  it("answers a clean 4xx or a readable PDF, never 500", { timeout: 60_000 }, async () => {
    const target = await inspect(await contractPdf());
    const hostile = {
      "inflate bomb": inflateBomb(target, 80),
      "dangling contents": danglingContents(target),
      "not a PDF": Buffer.from("%PDF-1.7\nnothing here"),
      "more pages than the limit": hugePdf(10_001),
      "loop in the page tree": Buffer.from(
        "%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 >> endobj\ntrailer << /Root 1 0 R /Size 3 >>\n%%EOF\n",
      ),
    };
    for (const [name, bytes] of Object.entries(hostile)) {
      const { status, json } = await stamp(bytes, { text: { value: "X" } });
      expect(status < 500, `${name}: ${status} ${JSON.stringify(json)}`).toBe(true);
      if (name === "more pages than the limit") expect(json.code).toBe("PAYLOAD_TOO_LARGE");
      if (status === 200) expect(pdfOf(json).subarray(0, 5).toString(), name).toBe("%PDF-");
    }
  });
});

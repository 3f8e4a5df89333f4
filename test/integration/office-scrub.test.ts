// The input checks' holes of issue 36, played through the real local server (warm LibreOffice,
// isolation as the system allows): each hostile document points at a canary (a picture, a PDF, a
// text file at known paths). Every test asserts the check's own verdict (a 422 naming the reason,
// or the neutralised output: a field's stored result, an image's alt text, a formula as text), so it
// fails when the check is removed even where LibreOffice could not read the canary anyway; and no
// answer may show a canary.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import PizZip from "pizzip";
import { sofficeConvert } from "#test/helpers/annotate-office.ts";
import { canaryIn, plantCanaries, type Canaries } from "#test/helpers/canaries.ts";
import { docFixture } from "#test/helpers/compound-files.ts";
import { solidPng } from "#test/helpers/convert-fixtures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { buildOdp, buildOds } from "#test/helpers/office-suite-files.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import {
  altChunkDocx,
  docWithFieldRenamed,
  docWithSvgPicture,
  readingSvg,
  rtfWithPicture,
  svgNamedPngDocx,
  wrapped,
  xlsxWithFormula,
} from "#test/helpers/scrub-vectors.ts";

const run = promisify(execFile);
const canaries: Canaries = await plantCanaries();
const scratch = mkdtempSync(join(tmpdir(), "signet-office-scrub-"));
const noBidi = (text: string) => text.replace(/[\u200e\u202a-\u202e]/g, "");

/** Answer is one response: its status, its bytes, and its JSON when it is an error. */
interface Answer {
  status: number;
  bytes: Buffer;
  json?: { code: string; message: string; details?: Array<{ field: string; issue: string }> };
}

let api: LocalApi;
let key: string;
// The server's own log line for what the checks took out (watched, not replaced): the verdict of a
// neutralising check, whatever LibreOffice would have made of the document.
let logged: MockInstance;
beforeAll(async () => {
  api = await startLocalApi("office-scrub", { SIGNET_TABLE: "signet-office-scrub", SIGNET_CONVERSION_CONCURRENCY: "1", SIGNET_KEY_RATE_LIMIT: "1000" });
  key = await obtainKey(api, "scrub");
  const { logger } = await import("#adapters/powertools-logger.ts");
  logged = vi.spyOn(logger, "info");
}, 120_000);

/** removedCounts are the counts the server logged as "external references removed" since the last call. */
function removedCounts(): number[] {
  const counts = logged.mock.calls
    .filter(([message]) => message === "external references removed before conversion")
    .map(([, extra]) => (extra as { count: number }).count);
  logged.mockClear();
  return counts;
}
afterAll(async () => {
  await api?.close();
  rmSync(canaries.dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function answer(response: Response): Promise<Answer> {
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = response.headers.get("content-type")?.includes("json") ? JSON.parse(bytes.toString("utf8")) : undefined;
  return { status: response.status, bytes, ...(json ? { json } : {}) };
}

/** convert posts a document to /v1/convert?to=pdf; the answer must show no canary. */
async function convert(bytes: Buffer, from: string): Promise<Answer> {
  const form = new FormData();
  form.append("file", new Blob([bytes]), `document.${from}`);
  const response = await fetch(`${api.url}/v1/convert?from=${from}&to=pdf`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } });
  const out = await answer(response);
  expect(canaryIn(out.bytes, canaries)).toBeUndefined();
  return out;
}

/** annotateAndSign posts a DOCX to /v1/annotate?to=pdf and to /v1/sign; neither answer may show a canary. */
async function annotateAndSign(bytes: Buffer): Promise<Answer[]> {
  const annotated = await api.postJson("/v1/annotate?to=pdf", { document: { base64: bytes.toString("base64") }, fields: [] }, key);
  const signed = await api.postJson(
    "/v1/sign",
    {
      document: { base64: bytes.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-25T10:00:00Z" }],
      certificate: { enabled: false },
    },
    key,
  );
  return [annotated, signed].map(({ status, json }) => {
    const base64 = typeof json.document?.base64 === "string" ? (json.document.base64 as string).replace(/^data:[^,]*,/, "") : "";
    const bytes = base64 ? Buffer.from(base64, "base64") : Buffer.from(JSON.stringify(json));
    expect(canaryIn(bytes, canaries)).toBeUndefined();
    return { status, bytes, ...(base64 ? {} : { json: json as Answer["json"] }) };
  });
}

/** saveAsDoc has LibreOffice save an RTF as a Word 97 file. */
async function saveAsDoc(rtf: string): Promise<Buffer> {
  const source = join(scratch, `doc-${process.hrtime.bigint()}.rtf`);
  writeFileSync(source, rtf, "latin1");
  const profile = pathToFileURL(join(scratch, "profile")).href;
  await run("soffice", [`-env:UserInstallation=${profile}`, "--headless", "--norestore", "--convert-to", "doc:MS Word 97", "--outdir", scratch, source], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch },
    timeout: 120_000,
  });
  return readFileSync(source.replace(/\.rtf$/, ".doc"));
}

describe("SVG the sanitiser never saw", () => {
  it("a DOCX picture part named .png holding an SVG nested in other XML: 422 naming the part in convert, annotate to=pdf and sign", async () => {
    const docx = svgNamedPngDocx(wrapped(readingSvg(canaries.picture)));
    const message = "part word/media/image1.png is an SVG picture Signet does not pass on (the root element must be <svg";
    const converted = await convert(docx, "docx");
    expect(converted.status).toBe(422);
    expect(converted.json?.message).toContain(`The DOCX ${message}`);
    for (const other of await annotateAndSign(docx)) {
      expect(other.status).toBe(422);
      expect(other.json?.message).toContain(message);
    }
  });

  it("a DOCX picture part named .png holding a gzip-compressed SVG nested in other XML: 422 svgz", async () => {
    const converted = await convert(svgNamedPngDocx(gzipSync(wrapped(readingSvg(canaries.picture)))), "docx");
    expect(converted.status).toBe(422);
    expect(converted.json?.message).toContain("The DOCX part word/media/image1.png is a compressed SVG (svgz)");
  });

  it("an RTF \\pict whose data is an SVG (hex, and \\bin): 422 naming the picture", async () => {
    for (const rtf of [rtfWithPicture(Buffer.from(readingSvg(canaries.picture)), "hex"), rtfWithPicture(Buffer.from(readingSvg(canaries.pdf)), "bin")]) {
      const converted = await convert(rtf, "rtf");
      expect(converted.status).toBe(422);
      expect(converted.json?.message).toContain("The RTF document has a picture (RTF picture number 1) whose bytes are an SVG drawing");
    }
  });

  it("HTML and Markdown data: URIs typed PNG whose bytes are an SVG: 200, the image becomes its alt text", async () => {
    const svg = Buffer.from(readingSvg(canaries.picture)).toString("base64");
    const html = `<html><body><p>Inline pictures</p><p><img alt="svg in png" src="data:image/png;base64,${svg}"></p></body></html>`;
    const markdown = `# Inline pictures\n\n![svg in png](data:image/png;base64,${svg})\n`;
    for (const [bytes, from] of [
      [Buffer.from(html), "html"],
      [Buffer.from(markdown), "md"],
    ] as const) {
      const converted = await convert(bytes, from);
      expect(converted.status, from).toBe(200);
      expect(noBidi(await pdfText(converted.bytes)), from).toContain("[svg in png]");
    }
  });

  it("ODP, PPTX, ODS, XLSX and ODT picture parts, and a PPT picture, whose bytes are an SVG nested in other XML: 422 naming the part", {
    timeout: 300_000,
  }, async () => {
    const svg = wrapped(readingSvg(canaries.picture));
    // A deck with one real picture, as LibreOffice itself writes it in each format.
    const odp = buildOdp([{ text: "Deck with a picture", picture: solidPng(1000, 800) }]);
    const [pptx, ppt] = await Promise.all([sofficeConvert(odp, "odp", "pptx"), sofficeConvert(odp, "odp", "ppt")]);
    const replacePictures = (bytes: Buffer, folder: string) => {
      const zip = new PizZip(bytes);
      const pictures = Object.keys(zip.files).filter((name) => name.startsWith(folder) && !name.endsWith("/"));
      expect(pictures.length, folder).toBeGreaterThan(0);
      for (const name of pictures) zip.file(name, svg);
      return { bytes: zip.generate({ type: "nodebuffer", compression: "DEFLATE" }), part: pictures[0]! };
    };
    const adding = (bytes: Buffer, name: string) => ({
      bytes: new PizZip(bytes).file(name, svg).generate({ type: "nodebuffer", compression: "DEFLATE" }),
      part: name,
    });
    const cases = [
      { from: "odp", ...replacePictures(odp, "Pictures/") },
      { from: "pptx", ...replacePictures(pptx, "ppt/media/") },
      { from: "ods", ...adding(buildOds([{ name: "Sheet1", rows: [["Workbook"]] }]), "Pictures/1.png") },
      { from: "xlsx", ...adding(xlsxWithFormula("<f>1+1</f>"), "xl/media/image1.png") },
      {
        from: "odt",
        ...adding(new PizZip(odp).file("mimetype", "application/vnd.oasis.opendocument.text").generate({ type: "nodebuffer" }), "Pictures/1.emf"),
      },
    ];
    for (const { from, bytes, part } of cases) {
      const converted = await convert(bytes, from);
      expect(converted.status, from).toBe(422);
      expect(converted.json?.message, from).toContain(`part ${part} is an SVG picture Signet does not pass on (the root element must be <svg`);
    }
    const converted = await convert(docWithSvgPicture(ppt, canaries.picture), "ppt");
    expect(converted.status).toBe(422);
    expect(converted.json?.message).toMatch(/^The \.ppt file has a picture \(Pictures stream, byte \d+\) whose bytes are an SVG drawing/);
  });

  it("a .doc whose embedded picture's bytes are an SVG: 422 naming the stream", async () => {
    const converted = await convert(docWithSvgPicture(docFixture("embedded-picture-inline.doc"), canaries.picture), "doc");
    expect(converted.status).toBe(422);
    expect(converted.json?.message).toMatch(/^The \.doc file has a picture \(\w+ stream, byte \d+\) whose bytes are an SVG drawing/);
  });
});

describe("fields", () => {
  it.each([
    ["=", `= INCLUDEPICTURE "${canaries.picture}"`],
    ["\\* MERGEFORMAT", `\\\\* MERGEFORMAT INCLUDEPICTURE "${canaries.pdf}"`],
  ])("an RTF INCLUDEPICTURE after %s: 200, the field removed (the server says so) and its stored result shown", async (_, instruction) => {
    const rtf = `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}\\pard Field document\\par {\\field{\\*\\fldinst ${instruction}}{\\fldrslt Stored field result}}\\par}`;
    removedCounts();
    const converted = await convert(Buffer.from(rtf, "latin1"), "rtf");
    expect(removedCounts()).toEqual([1]);
    expect(converted.status).toBe(200);
    const text = noBidi(await pdfText(converted.bytes));
    expect(text).toContain("Field document");
    expect(text).toContain("Stored field result");
  });

  it("a .doc INCLUDETEXT field whose text says QUOTE: 422, judged by its field-type byte", async () => {
    const doc = await saveAsDoc(
      `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}\\pard Doc field\\par {\\field{\\*\\fldinst INCLUDETEXT "${canaries.text}"}{\\fldrslt included}}\\par}`,
    );
    const converted = await convert(docWithFieldRenamed(doc, "INCLUDETEXT", "QUOTE      "), "doc");
    expect(converted.status).toBe(422);
    expect(converted.json).toMatchObject({
      code: "INVALID_DOCUMENT",
      message: expect.stringContaining("The .doc file has a INCLUDETEXT field, which loads content from outside the document"),
      details: [{ field: "file", issue: "INCLUDETEXT field (field type)" }],
    });
  });
});

describe("altChunk documents", () => {
  it("an altChunk DOCX holding a picture part named .png that is an SVG in other XML: 422 naming both parts, in convert, annotate to=pdf and sign", async () => {
    const docx = altChunkDocx({ inner: "docx", png: wrapped(readingSvg(canaries.picture)) });
    const message = "In the embedded document word/afchunk.docx: The DOCX part word/media/image1.png is an SVG picture Signet does not pass on";
    const converted = await convert(docx, "docx");
    expect(converted.status).toBe(422);
    expect(converted.json?.message).toContain(message);
    for (const other of await annotateAndSign(docx)) {
      expect(other.status).toBe(422);
      expect(other.json?.message).toContain(message);
    }
  });

  it("an altChunk DOCX holding an SVG that draws the canary: 200, sanitised", async () => {
    removedCounts();
    const converted = await convert(altChunkDocx({ inner: "docx", svg: readingSvg(canaries.picture) }), "docx");
    expect(converted.status).toBe(200);
    // The inner SVG's file: image went: one reference removed.
    expect(removedCounts()).toEqual([1]);
    expect(noBidi(await pdfText(converted.bytes))).toContain("Outer document");
  });
});

describe("spreadsheet formulas", () => {
  it('CSV cells are shown as text, never evaluated: =CELL("filename") and =INFO("osversion") print as written', async () => {
    const csv = 'Name,Value\nfile,=CELL("filename")\nsystem,=INFO("osversion")\nsum,=1+1\n';
    const converted = await convert(Buffer.from(csv), "csv");
    expect(converted.status).toBe(200);
    const text = noBidi(await pdfText(converted.bytes));
    expect(text).toContain('=CELL("filename")');
    expect(text).toContain('=INFO("osversion")');
    expect(text).toContain("=1+1");
    expect(text).not.toMatch(/file:\/\/\/|Linux/);
  });

  it("an XLSX INDIRECT to a file: URL (which crashed LibreOffice): 422 naming the cell", async () => {
    const converted = await convert(xlsxWithFormula(`<f>INDIRECT("'${pathToFileURL(canaries.text).href}'#$Sheet1.A1")</f>`), "xlsx");
    expect(converted.status).toBe(422);
    expect(converted.json).toMatchObject({
      code: "INVALID_DOCUMENT",
      message: expect.stringContaining("The XLSX has a formula in cell B2 (xl/worksheets/sheet1.xml) that uses INDIRECT"),
      details: [{ field: "file", issue: "cell B2 (xl/worksheets/sheet1.xml): INDIRECT" }],
    });
  });
});

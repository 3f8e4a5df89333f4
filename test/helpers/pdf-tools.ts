// Independent PDF checks for the tests: poppler (pdftotext, pdfinfo, pdffonts, pdfimages, pdfsig,
// pdftoppm), MuPDF (mutool) and qpdf run on what Signet produced. Each takes the PDF bytes or the path of a PDF file.
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** PdfSource is a PDF as bytes, or the path of a PDF file. */
export type PdfSource = Uint8Array | string;

/** pdfText extracts text with pdftotext: pages first..last (1-based, inclusive; default all), layout kept when asked, only an area when given. */
export async function pdfText(
  pdf: PdfSource,
  options: { first?: number; last?: number; layout?: boolean; area?: { x: number; y: number; width: number; height: number } } = {},
): Promise<string> {
  const { first = 1, last, layout = false, area } = options;
  return withFile(pdf, async (path) => {
    // area: only the text inside it, in points from the page's top left corner (pdftotext's -x -y -W -H at 72 dpi).
    const crop = area
      ? ["-x", area.x, "-y", area.y, "-W", area.width, "-H", area.height].map((item) => (typeof item === "number" ? String(Math.round(item)) : item))
      : [];
    const args = [...(layout ? ["-layout"] : []), ...crop, "-f", String(first), ...(last ? ["-l", String(last)] : []), "-enc", "UTF-8", path, "-"];
    return (await run("pdftotext", args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
  });
}

/** hasMutool tells whether MuPDF's mutool is installed (scripts/setup.mjs installs mupdf-tools for the tests). */
export const hasMutool = spawnSync("sh", ["-c", "command -v mutool"]).status === 0;

/** MUTOOL_MISSING is the failure message of a test that needs mutool where it is missing (never a skip). */
export const MUTOOL_MISSING = "mutool is not installed: apt-get install mupdf-tools (npm test does as root)";

/** mutoolText extracts text with MuPDF (`mutool draw -F txt`), the second reader the certificate page is checked with. */
export async function mutoolText(pdf: PdfSource): Promise<string> {
  return withFile(pdf, async (path) => (await run("mutool", ["draw", "-q", "-F", "txt", "-o", "-", path], { maxBuffer: 64 * 1024 * 1024 })).stdout);
}

/** mutoolChars lists every character MuPDF extracts (`mutool draw -F stext`), in its order, with its origin x and right edge. */
export async function mutoolChars(pdf: PdfSource): Promise<Array<{ char: string; x: number; right: number }>> {
  return withFile(pdf, async (path) => {
    const xml = (await run("mutool", ["draw", "-q", "-F", "stext", "-o", "-", path], { maxBuffer: 64 * 1024 * 1024 })).stdout;
    return [...xml.matchAll(/<char quad="([-\d.]+) [-\d.]+ ([-\d.]+)[^"]*" x="[-\d.]+" y="[-\d.]+"[^>]*? c="([^"]*)"/g)].map((match) => ({
      char: match[3]!
        .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
        .replace(/&(amp|lt|gt|quot);/g, (entity) => ({ "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"' })[entity]!),
      x: Number(match[1]),
      right: Number(match[2]),
    }));
  });
}

/** pdfPageCount reads the page count with pdfinfo. */
export async function pdfPageCount(pdf: PdfSource): Promise<number> {
  return withFile(pdf, async (path) => Number(/Pages:\s+(\d+)/.exec((await run("pdfinfo", [path])).stdout)?.[1]));
}

/** pdfInfo is pdfinfo's answer as its "Key: value" lines (Title, Author, Pages...). */
export async function pdfInfo(pdf: PdfSource): Promise<Record<string, string>> {
  return withFile(pdf, async (path) =>
    Object.fromEntries([...(await run("pdfinfo", [path])).stdout.matchAll(/^([A-Za-z ]+):\s+(.*)$/gm)].map((match) => [match[1]!, match[2]!.trim()])),
  );
}

/** mutoolPageCount reads the page count with MuPDF (`mutool info`); 0 when MuPDF finds no page tree. */
export async function mutoolPageCount(pdf: PdfSource): Promise<number> {
  return withFile(pdf, async (path) => {
    const { stdout } = await run("mutool", ["info", path]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    return Number(/^Pages: (\d+)/m.exec(stdout)?.[1] ?? 0);
  });
}

/** qpdfPageCount reads the page count with qpdf (`--show-npages`; warnings allowed, exit status 3). */
export async function qpdfPageCount(pdf: PdfSource): Promise<number> {
  return withFile(pdf, async (path) => {
    const { stdout } = await run("qpdf", ["--show-npages", path]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    return Number(stdout.trim() || 0);
  });
}

/** pdfMetadata is the XMP metadata stream as pdfinfo -meta prints it. */
export async function pdfMetadata(pdf: PdfSource): Promise<string> {
  return withFile(pdf, async (path) => (await run("pdfinfo", ["-meta", path])).stdout);
}

/** pdfFonts is the font table pdffonts prints (name, type, encoding, emb, sub, uni, object). */
export async function pdfFonts(pdf: PdfSource): Promise<string> {
  return withFile(pdf, async (path) => (await run("pdffonts", [path])).stdout);
}

/** pdfImageRows lists the images of a PDF as pdfimages -list prints them, one row each (headings left out). */
export async function pdfImageRows(pdf: PdfSource): Promise<string[]> {
  return withFile(pdf, async (path) =>
    (await run("pdfimages", ["-list", path])).stdout
      .trim()
      .split("\n")
      .slice(2)
      .filter((line) => line.trim()),
  );
}

/** pdfImages lists the images of a PDF (pdfimages -list): pixel size and drawn resolution (pixels per inch). */
export async function pdfImages(pdf: PdfSource): Promise<Array<{ width: number; height: number; ppi: number }>> {
  return (await pdfImageRows(pdf)).map((line) => {
    const columns = line.trim().split(/\s+/);
    return { width: Number(columns[3]), height: Number(columns[4]), ppi: Number(columns[12]) };
  });
}

/** PdfsigSignature is one signature as poppler's pdfsig reports it. */
export interface PdfsigSignature {
  type: string;
  valid: boolean;
  totalDocumentSigned: boolean;
  text: string;
}

/** pdfsig runs poppler's independent validator and splits its report per signature (it exits non-zero for untrusted certificates). */
export async function pdfsig(pdf: PdfSource): Promise<PdfsigSignature[]> {
  const stdout = await withFile(
    pdf,
    async (path) => (await run("pdfsig", [path]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }))).stdout,
  );
  return stdout
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .map((text) => ({
      type: /Signature Type: (\S+)/.exec(text)?.[1] ?? "",
      valid: /Signature Validation: Signature is Valid\./.test(text),
      totalDocumentSigned: /- Total document signed/.test(text),
      text,
    }));
}

/** qpdfCheck runs qpdf --check: ok is true only for exit status 0 (no errors, no warnings). */
export async function qpdfCheck(pdf: PdfSource): Promise<{ ok: boolean; output: string }> {
  return withFile(pdf, async (path) => {
    try {
      return { ok: true, output: (await run("qpdf", ["--check", path])).stdout };
    } catch (error) {
      return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
    }
  });
}

/** renderPages rasterises pages first..last with pdftoppm (gray, 50 dpi) and returns each page's PGM bytes. */
export async function renderPages(pdf: PdfSource, first: number, last: number): Promise<Buffer[]> {
  return withFile(pdf, async (path, dir) => {
    await run("pdftoppm", ["-f", String(first), "-l", String(last), "-r", "50", "-gray", path, join(dir, "page")]);
    const digits = String(last).length;
    const pages: Buffer[] = [];
    for (let page = first; page <= last; page++) pages.push(await readFile(join(dir, `page-${String(page).padStart(digits, "0")}.pgm`)));
    return pages;
  });
}

/** withFile hands a tool a path: the given one, or the bytes written to a temporary folder removed afterwards. */
async function withFile<T>(pdf: PdfSource, use: (path: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "signet-pdf-tools-"));
  try {
    const path = typeof pdf === "string" ? pdf : join(dir, "in.pdf");
    if (typeof pdf !== "string") await writeFile(path, pdf);
    return await use(path, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** qpdfUncompressed is the file as qpdf writes it for reading (QDF: streams inflated, no object streams), as latin1 text. */
export async function qpdfUncompressed(pdf: PdfSource): Promise<string> {
  return withFile(pdf, async (path) => {
    const { stdout } = await run("qpdf", ["--qdf", "--object-streams=disable", path, "-"], { encoding: "latin1", maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  });
}

/** qpdfFieldStream is the decoded data (qpdf's JSON, streams inflated) of the stream that `key` of the field titled `title` names, or undefined. */
export async function qpdfFieldStream(pdf: PdfSource, title: string, key: string): Promise<Buffer | undefined> {
  return withFile(pdf, async (path) => {
    const args = ["--json=2", "--json-key=qpdf", "--json-stream-data=inline", path];
    const { stdout } = await run("qpdf", args, { maxBuffer: 256 * 1024 * 1024 });
    const objects = (JSON.parse(stdout) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown>; stream?: { data?: string } }>] }).qpdf[1];
    const field = Object.values(objects).find((object) => object.value?.["/T"] === `u:${title}`);
    const ref = field?.value?.[key];
    const data = typeof ref === "string" ? objects[`obj:${ref}`]?.stream?.data : undefined;
    return data === undefined ? undefined : Buffer.from(data, "base64");
  });
}

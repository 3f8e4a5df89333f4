// npm run bench:forms — the PDF form features over the corpus (test/fixtures/forms, issue 39 item 4):
// fields listed against manifest.json; every writable text field filled through the domain
// (fillPdfForm), its value read back by pdftotext and `mutool draw -F txt` after filling and after
// flattening, and seen in a poppler render (pdftoppm -cropbox: the widget's region, mapped through
// the page's crop box and /Rotate, differs from the unfilled render); the filled form signed through
// the local server (B-B) and judged by pyHanko;
// fill time per form (median, p95). Values are compared without white space (a comb field draws
// each character in its own cell, which extraction reads with spaces between).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDF, PdfNumber } from "@libpdf/core";
import { bundledFonts } from "#adapters/bundled-fonts.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { readPageTree } from "#domain/pdf/page-tree.ts";
import { type FillRequest, fillPdfForm } from "#domain/pdf-forms/fill-form.ts";
import type { ListedField } from "#domain/pdf-forms/list-form.ts";
import { listPdfForm } from "#domain/pdf-forms/read-form-file.ts";
import { writerView } from "#domain/pdf-forms/writer-view.ts";
import { isSignetError } from "#domain/shared/errors.ts";
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";
import { pyhankoValidate } from "#test/helpers/signature-checks.ts";

// The local server signs each filled form (fields on POST /v1/sign); pyHanko judges the result.
const api = await startLocalApi("bench-forms", { SIGNET_TABLE: "signet-bench-forms" });
const key = await obtainKey(api, "bench-forms");

const dir = "test/fixtures/forms";
const work = mkdtempSync(join(tmpdir(), "signet-bench-forms-"));
const fonts = bundledFonts({ fontsDir: "assets/fonts/" });
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as {
  forms: Array<{ file: string; pages: number; fields: Array<{ name: string; inFieldTree?: false }> }>;
};
const squeeze = (text: string) => text.replace(/\s+/g, "");
const DPI = 36;

/** render is a page's crop box as 8-bit grey pixels (pdftoppm -gray -cropbox at DPI), turned by its /Rotate as a viewer shows it. */
function render(file: string, page: number): { width: number; height: number; pixels: Buffer } {
  const pgm = execFileSync("pdftoppm", ["-gray", "-cropbox", "-r", String(DPI), "-f", String(page), "-l", String(page), file], { maxBuffer: 1 << 28 });
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString("latin1", 0, 40))!;
  return { width: Number(header[1]), height: Number(header[2]), pixels: pgm.subarray(header[0].length) };
}

/** PageBox is a page's crop box (points, user space) and its /Rotate (0, 90, 180 or 270), from pdfinfo. */
type PageBox = { box: [number, number, number, number]; rotate: number };

/** pageBox reads a page's crop box and rotation; the render covers the crop box, turned clockwise by the rotation. */
function pageBox(file: string, page: number): PageBox {
  const info = execFileSync("pdfinfo", ["-box", "-f", String(page), "-l", String(page), file]).toString();
  const box = /CropBox:\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)/.exec(info)!.slice(1, 5).map(Number) as PageBox["box"];
  const rotate = ((Number(/rot:\s+(-?\d+)/.exec(info)?.[1] ?? 0) % 360) + 360) % 360;
  return { box, rotate };
}

/** toPixels maps a point in user space to render pixels: the crop box's top left is (0, 0), the page turned by /Rotate. */
function toPixels(x: number, y: number, { box, rotate }: PageBox): [number, number] {
  const [u, v] = [x - box[0], box[3] - y];
  const [width, height] = [box[2] - box[0], box[3] - box[1]];
  const turned: [number, number] = rotate === 90 ? [height - v, u] : rotate === 180 ? [width - u, height - v] : rotate === 270 ? [v, width - u] : [u, v];
  return [turned[0] * (DPI / 72), turned[1] * (DPI / 72)];
}

/** differs tells whether a widget's rectangle (user space) shows different pixels in two renders of its page. */
function differs(a: ReturnType<typeof render>, b: ReturnType<typeof render>, rect: number[], page: PageBox): boolean {
  const [p, q] = [toPixels(rect[0]!, rect[1]!, page), toPixels(rect[2]!, rect[3]!, page)];
  const [x0, x1] = [Math.floor(Math.min(p[0], q[0])), Math.ceil(Math.max(p[0], q[0]))];
  const [y0, y1] = [Math.floor(Math.min(p[1], q[1])), Math.ceil(Math.max(p[1], q[1]))];
  for (let y = Math.max(0, y0); y < Math.min(a.height, y1); y++)
    for (let x = Math.max(0, x0); x < Math.min(a.width, x1); x++) if (a.pixels[y * a.width + x] !== b.pixels[y * b.width + x]) return true;
  return false;
}

/** hiddenFields names the fields whose placed widget is Hidden (/F bit 2) or NoView (bit 6): a viewer does not show it, filled or not. */
async function hiddenFields(bytes: Buffer): Promise<Set<string>> {
  const view = writerView(await PDF.load(bytes));
  const hidden = new Set<string>();
  for (const field of readForm(view, readPageTree(view)).fields) {
    const flags = field.widgets.find((item) => item.page !== null && item.rect)?.dict.get("F");
    if (flags instanceof PdfNumber && (flags.value & 0b100010) !== 0) hidden.add(field.name);
  }
  return hidden;
}

/** valuesFor picks a value for every writable text field: "V<n>x" cut to its max length (at least one character). */
function valuesFor(fields: ListedField[]): Array<{ name: string; value: string; field: ListedField }> {
  return fields
    .filter((field) => field.type === "text" && !field.flags.readOnly && field.widgets.some((widget) => widget.page !== null && widget.rect))
    .map((field, index) => ({ name: field.name, value: `V${index}x`.slice(0, field.flags.maxLength ?? 99) || "V", field }));
}

const times: Array<{ ms: number; pages: number }> = [];
const totals = {
  listedForms: 0,
  forms: 0,
  fields: 0,
  manifestFields: 0,
  values: 0,
  pdftotext: 0,
  mutool: 0,
  visible: 0,
  hidden: 0,
  hiddenVisible: 0,
  flatPdftotext: 0,
  flatMutool: 0,
  crashes: 0,
  refused: [] as string[],
  mutoolErrors: [] as string[],
  signed: 0,
  pyhankoHolds: 0,
  pyhankoOther: [] as string[],
};

async function benchForm(form: (typeof manifest.forms)[number]): Promise<void> {
  const bytes = readFileSync(join(dir, form.file));
  const listing = await listPdfForm(bytes);
  const want = form.fields
    .filter((field) => field.inFieldTree !== false)
    .map((field) => field.name)
    .sort();
  totals.manifestFields += want.length;
  totals.fields += listing.fields.filter((field) => want.includes(field.name)).length;
  if (JSON.stringify(listing.fields.map((field) => field.name).sort()) === JSON.stringify(want)) totals.listedForms++;
  const values = valuesFor(listing.fields);
  if (values.length === 0) return;
  const request: FillRequest = { fields: values.map(({ name, value }) => ({ name, value })), dropXfa: true };
  let filled: Buffer;
  const started = performance.now();
  try {
    filled = await fillPdfForm(bytes, request, { fonts });
  } catch (error) {
    if (!isSignetError(error)) throw error;
    totals.refused.push(`${form.file}: ${error.code}`);
    return;
  }
  times.push({ ms: performance.now() - started, pages: form.pages });
  totals.forms++;
  totals.values += values.length;
  const flat = await fillPdfForm(bytes, { ...request, flatten: true }, { fonts });
  const [filledFile, flatFile, originalFile] = ["filled", "flat", "original"].map((kind) => join(work, `${kind}-${form.file}`)) as [string, string, string];
  writeFileSync(filledFile, filled);
  writeFileSync(flatFile, flat);
  writeFileSync(originalFile, bytes);
  const text = (file: string) => squeeze(execFileSync("pdftotext", [file, "-"], { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 28 }).toString());
  const mutool = (file: string) => {
    try {
      return squeeze(execFileSync("mutool", ["draw", "-F", "txt", "-o", "-", file], { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 }).toString());
    } catch (error) {
      // MuPDF reports an error on a page and goes on: its text still counts, the error is listed.
      const { stdout, stderr } = error as { stdout: Buffer; stderr: Buffer };
      totals.mutoolErrors.push(`${file.split("/").pop()}: ${/error: (.*)/.exec(stderr.toString())?.[1] ?? "failed"}`);
      return squeeze(stdout.toString());
    }
  };
  const [filledText, filledMutool, flatText, flatMutool] = [text(filledFile), mutool(filledFile), text(flatFile), mutool(flatFile)];
  const visibleBefore = totals.visible;
  const unseen: string[] = [];
  const hidden = await hiddenFields(bytes);
  const renders = new Map<number, [ReturnType<typeof render>, ReturnType<typeof render>, PageBox]>();
  for (const { value, field } of values) {
    if (filledText.includes(value)) totals.pdftotext++;
    if (filledMutool.includes(value)) totals.mutool++;
    if (flatText.includes(value)) totals.flatPdftotext++;
    if (flatMutool.includes(value)) totals.flatMutool++;
    const widget = field.widgets.find((item) => item.page !== null && item.rect)!;
    const page = widget.page!;
    if (!renders.has(page)) renders.set(page, [render(originalFile, page), render(filledFile, page), pageBox(originalFile, page)]);
    const [before, after, box] = renders.get(page)!;
    const seen = differs(before, after, widget.rect!, box);
    if (seen) totals.visible++;
    if (hidden.has(field.name)) totals.hidden++;
    if (hidden.has(field.name) && seen) totals.hiddenVisible++;
    if (!seen) unseen.push(`${field.name}${hidden.has(field.name) ? " (hidden)" : ""}`);
  }
  console.log(`${form.file}: ${values.length} values, ${totals.visible - visibleBefore} visible${unseen.length ? ` (not seen: ${unseen.join(", ")})` : ""}`);
  await signAndJudge(form.file, bytes, request);
}

/** signAndJudge fills and signs through the local server and counts pyHanko's verdict. */
async function signAndJudge(file: string, bytes: Buffer, request: FillRequest): Promise<void> {
  const body = {
    document: { base64: bytes.toString("base64") },
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    auditTrail: [{ type: "submit", timestamp: "2026-11-27T09:58:00Z" }],
    level: "B-B",
    ...request,
  };
  // pyHanko ran synchronously and blocked the server's event loop: a kept-alive connection may be reset once.
  const { status, json } = await api.postJson("/v1/sign", body, key).catch(() => api.postJson("/v1/sign", body, key));
  if (status !== 200) {
    totals.pyhankoOther.push(`${file}: sign ${status} ${json.code}`);
    return;
  }
  totals.signed++;
  try {
    if (pyhankoValidate(Buffer.from(json.document.base64 as string, "base64")).allHold) totals.pyhankoHolds++;
    else totals.pyhankoOther.push(`${file}: does not hold`);
  } catch (error) {
    totals.pyhankoOther.push(`${file}: no verdict (${(error as Error).message.slice(0, 120)})`);
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // pyHanko blocked the event loop: let idle connections close
}

for (const form of manifest.forms) {
  try {
    await benchForm(form);
  } catch (error) {
    totals.crashes++;
    console.log(`${form.file}: crash ${(error as Error).stack?.split("\n").slice(0, 3).join(" ")}`);
  }
}

const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
const sorted = times.map((time) => time.ms).sort((a, b) => a - b);
const quantile = (values: number[], q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
const fivePage = times
  .filter((time) => time.pages >= 3 && time.pages <= 13)
  .map((time) => time.ms)
  .sort((a, b) => a - b);
console.log(
  `forms: ${manifest.forms.length}; listed exactly: ${totals.listedForms}; fields listed ${totals.fields}/${totals.manifestFields} (${percent(totals.fields, totals.manifestFields)})`,
);
console.log(
  `filled: ${totals.forms} forms, ${totals.values} text values; refused (by design): ${totals.refused.join(", ") || "none"}; crashes: ${totals.crashes}`,
);
console.log(
  `after filling: pdftotext ${percent(totals.pdftotext, totals.values)}, mutool ${percent(totals.mutool, totals.values)}, visible in a pdftoppm render ${percent(totals.visible, totals.values)}; of values whose widget a viewer shows (not Hidden or NoView, ${totals.hidden} are) ${percent(totals.visible - totals.hiddenVisible, totals.values - totals.hidden)}`,
);
console.log(`MuPDF errors: ${totals.mutoolErrors.join("; ") || "none"}`);
console.log(`after flattening: pdftotext ${percent(totals.flatPdftotext, totals.values)}, mutool ${percent(totals.flatMutool, totals.values)}`);
console.log(
  `signed through the local server: ${totals.signed}; pyHanko holds: ${totals.pyhankoHolds}/${totals.signed}; other: ${totals.pyhankoOther.join("; ") || "none"}`,
);
console.log(
  `fill time per form: median ${quantile(sorted, 0.5).toFixed(0)} ms, p95 ${quantile(sorted, 0.95).toFixed(0)} ms; forms of 3-13 pages: median ${quantile(fivePage, 0.5).toFixed(0)} ms (${fivePage.length} forms)`,
);
await api.close();

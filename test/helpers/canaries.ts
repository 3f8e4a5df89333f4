// Canaries: local files a hostile document may point LibreOffice at (a picture, a PDF, a text file)
// at known paths. None of them may ever show in an answer of convert, sign or annotate: their marker
// text in the PDF's text, or an image of the canary picture's unusual size.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { solidPng } from "#test/helpers/convert-fixtures.ts";

/** Canaries are the planted files: their folder, their paths, the unique marker text and the picture's pixel size. */
export interface Canaries {
  dir: string;
  /** A PNG of `size` pixels (a size no fixture uses). */
  picture: string;
  /** A one-page PDF whose text is `marker`. */
  pdf: string;
  /** A text file holding `marker`. */
  text: string;
  marker: string;
  size: { width: number; height: number };
}

/** plantCanaries writes the canary picture, PDF and text file into dir (a new temporary folder by default). */
export async function plantCanaries(dir?: string): Promise<Canaries> {
  const folder = dir ?? mkdtempSync(join(tmpdir(), "signet-canaries-"));
  const marker = `SIGNETCANARY${process.pid}X${Date.now().toString(36).toUpperCase()}`;
  const size = { width: 37, height: 23 };
  const picture = join(folder, "canary.png");
  const pdf = join(folder, "canary.pdf");
  const text = join(folder, "canary.txt");
  writeFileSync(picture, solidPng(size.width, size.height, [10, 200, 10]));
  writeFileSync(text, `${marker}\n`);
  const document = await PDFDocument.create();
  const page = document.addPage([300, 200]);
  page.drawText(marker, { x: 20, y: 100, size: 12, font: await document.embedFont(StandardFonts.Helvetica) });
  writeFileSync(pdf, await document.save());
  return { dir: folder, picture, pdf, text, marker, size };
}

/**
 * canaryIn tells which canary an answer shows, if any: "marker text" when its text (pdftotext, or
 * the bytes themselves when it is no PDF) holds the marker, "picture WxH" when pdfimages lists an
 * image of the canary picture's size; undefined when none does.
 */
export function canaryIn(answer: Uint8Array, c: Canaries): string | undefined {
  const bytes = Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength);
  if (bytes.includes(c.marker) || bytes.includes(Buffer.from(c.marker, "utf16le"))) return "marker text";
  if (bytes.subarray(0, 5).toString("latin1") !== "%PDF-") return undefined;
  const scratch = mkdtempSync(join(tmpdir(), "signet-canary-check-"));
  try {
    const path = join(scratch, "answer.pdf");
    writeFileSync(path, bytes);
    const text = spawnSync("pdftotext", ["-enc", "UTF-8", path, "-"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (text.status !== 0) throw new Error(`pdftotext failed: ${text.stderr}`);
    if (text.stdout.includes(c.marker)) return "marker text";
    const images = spawnSync("pdfimages", ["-list", path], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (images.status !== 0) throw new Error(`pdfimages failed: ${images.stderr}`);
    for (const line of images.stdout.trim().split("\n").slice(2)) {
      const columns = line.trim().split(/\s+/);
      if (Number(columns[3]) === c.size.width && Number(columns[4]) === c.size.height) return `picture ${c.size.width}x${c.size.height}`;
    }
    return undefined;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

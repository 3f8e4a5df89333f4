// Canaries: files at known paths that no answer may ever contain. A picture of an unusual size
// and colour, a one-page PDF and a text file, both holding a unique marker. An answer holds a
// canary when pdftotext finds the marker in it (a drawn PDF's text stays extractable) or when
// pdfimages lists an image of the picture's size.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { solidPng } from "#test/helpers/convert-fixtures.ts";

/** Canaries are the planted files: paths, the marker text the PDF and the text file hold, and the picture's size. */
export interface Canaries {
  dir: string;
  /** A PNG of `size`, one unusual colour. */
  picture: string;
  /** A one-page PDF showing `marker`. */
  pdf: string;
  /** A text file holding `marker`. */
  text: string;
  marker: string;
  size: { width: number; height: number };
}

const size = { width: 37, height: 23 };

/** plantCanaries writes a picture, a PDF and a text file into dir (created if missing; default a new /tmp/signet-canary-*). */
export async function plantCanaries(dir?: string): Promise<Canaries> {
  const folder = dir ?? mkdtempSync(join(tmpdir(), "signet-canary-"));
  await mkdir(folder, { recursive: true });
  const marker = `CANARYMARKER${randomBytes(6).toString("hex").toUpperCase()}`;
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 120]);
  page.drawText(marker, { x: 20, y: 60, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  const canaries: Canaries = {
    dir: folder,
    picture: join(folder, "canary-picture.png"),
    pdf: join(folder, "canary-document.pdf"),
    text: join(folder, "canary-text.txt"),
    marker,
    size,
  };
  await writeFile(canaries.picture, solidPng(size.width, size.height, [13, 171, 77]));
  await writeFile(canaries.pdf, await doc.save());
  await writeFile(canaries.text, `${marker}\n`);
  return canaries;
}

/**
 * canaryIn tells what of the canaries an answer holds: "marker" when its bytes or (a PDF) its text
 * have the marker, "picture WxH" when it is a PDF with an image of the picture's size, else undefined.
 */
export function canaryIn(answer: Uint8Array, c: Canaries): string | undefined {
  const bytes = Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength);
  if (bytes.includes(c.marker, 0, "latin1")) return "marker";
  // Not a PDF (an error's JSON): nothing for the PDF tools to read.
  if (bytes.subarray(0, 5).toString("latin1") !== "%PDF-") return undefined;
  const scratch = mkdtempSync(join(tmpdir(), "signet-canary-check-"));
  const file = join(scratch, "answer.pdf");
  try {
    writeFileSync(file, answer);
    const text = execFileSync("pdftotext", [file, "-"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    if (text.includes(c.marker)) return "marker";
    const list = execFileSync("pdfimages", ["-list", file], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const found = list
      .split("\n")
      .slice(2)
      .map((line) => line.trim().split(/\s+/))
      .some((columns) => Number(columns[3]) === c.size.width && Number(columns[4]) === c.size.height);
    return found ? `picture ${c.size.width}x${c.size.height}` : undefined;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

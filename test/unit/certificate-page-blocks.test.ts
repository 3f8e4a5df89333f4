// Drawing the certificate's blocks (blocks.ts on canvas.ts): a heading is kept with the start of
// what follows it, the event table's header comes back on each page, every page gets its footer.
import { PDF } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { drawBlocks } from "#domain/certificate-page/blocks.ts";
import { CertificateCanvas } from "#domain/certificate-page/canvas.ts";
import type { Block } from "#domain/certificate-page/content.ts";
import { STYLE } from "#domain/certificate-page/style.ts";
import { DocumentFonts } from "#domain/pdf-text/fonts.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

function canvasWithRoom(room: number): { pdf: PDF; canvas: CertificateCanvas } {
  const pdf = PDF.create();
  const canvas = new CertificateCanvas(pdf, new DocumentFonts(pdf, testFonts()), STYLE.page.fallback);
  canvas.flow.advance(canvas.flow.cursor - STYLE.page.margin.bottom - room);
  return { pdf, canvas };
}

const row = { number: "1", time: "2026-11-22 09:55:00 UTC", type: "ready", details: "—" };
const heading: Block = { kind: "section", title: "Heading" };

describe("drawBlocks", () => {
  // A heading takes 34 points and keeps 14 of a field, 48 of the event table (its header and two
  // rows), 52 of paragraphs (four lines). 81.7 points hold a heading, the table's note, header and
  // one row (34 + 14 + 18 + 15.5), so only the heading's keep moves the table to the next page.
  it.each([
    { name: "a heading before a field stays", room: 60, next: { kind: "field", label: "Name", value: "Ada", style: "regular" } as Block, pages: 1 },
    { name: "a heading before the event table moves on", room: 81.7, next: { kind: "events", note: "note", rows: [row] } as Block, pages: 2 },
    { name: "a heading before paragraphs moves on", room: 60, next: { kind: "paragraphs", lines: ["one"] } as Block, pages: 2 },
  ])("$name", ({ room, next, pages }) => {
    const { canvas } = canvasWithRoom(room);
    drawBlocks(canvas, [heading, next]);
    expect(canvas.flow.pages).toBe(pages);
  });

  it("flows a long table onto further pages and writes each with its footer", async () => {
    const { pdf, canvas } = canvasWithRoom(700);
    drawBlocks(canvas, [{ kind: "events", note: "note", rows: Array.from({ length: 120 }, (_, i) => ({ ...row, number: String(i + 1) })) }]);
    const labels: string[] = [];
    canvas.writePages(pdf, "footer", (index, total) => {
      labels.push(`${index + 1}/${total}`);
      return `Page ${index + 1} of ${total}`;
    });
    expect(canvas.flow.pages).toBeGreaterThan(1);
    expect(labels).toEqual(Array.from({ length: canvas.flow.pages }, (_, i) => `${i + 1}/${canvas.flow.pages}`));
    expect(pdf.getPageCount()).toBe(canvas.flow.pages);
  });
});

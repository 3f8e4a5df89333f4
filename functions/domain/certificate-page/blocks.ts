// How each kind of block is drawn on the canvas: the title, a section heading kept with what
// follows it, a labelled field, the event table (its header repeated on each page) and paragraphs.
import type { CertificateCanvas } from "#domain/certificate-page/canvas.ts";
import type { Block, EventRow } from "#domain/certificate-page/content.ts";
import { STYLE } from "#domain/certificate-page/style.ts";

const { margin: MARGIN } = STYLE.page;
const { ink: INK, muted: MUTED, accent: ACCENT, band: BAND } = STYLE.color;

function title(canvas: CertificateCanvas, block: Extract<Block, { kind: "title" }>): void {
  const style = STYLE.title;
  const { flow } = canvas;
  canvas.text(block.title, MARGIN.left, flow.cursor, "bold", style.size, INK);
  flow.advance(style.after);
  canvas.text(block.subtitle, MARGIN.left, flow.cursor, "regular", style.subtitleSize, MUTED);
  flow.advance(style.subtitleAfter);
  canvas.rule(flow.cursor, ACCENT, style.ruleThickness);
  flow.advance(style.ruleAfter);
}

/** keepWith is how much of the block after a heading must fit below it: the table header and two rows, four lines of text, or a field. */
function keepWith(next: Block | undefined): number {
  if (next?.kind === "events") return STYLE.events.keepWith;
  if (next?.kind === "paragraphs") return STYLE.verify.keepWith;
  return STYLE.section.keepWith;
}

/** section draws a heading; it moves to a new page unless `keepWith` points of what follows fit below it too. */
function section(canvas: CertificateCanvas, heading: string, keep: number): void {
  const style = STYLE.section;
  const { flow } = canvas;
  canvas.ensure(style.height + keep);
  flow.advance(style.before);
  canvas.text(heading.toUpperCase(), MARGIN.left, flow.cursor, "bold", style.size, ACCENT);
  flow.advance(style.ruleGap);
  canvas.rule(flow.cursor);
  flow.advance(style.after);
}

function field(canvas: CertificateCanvas, block: Extract<Block, { kind: "field" }>): void {
  const look = STYLE.field;
  const { flow } = canvas;
  const size = block.style === "mono" ? look.monoSize : look.size;
  const lines = canvas.wrap(block.value, flow.contentWidth - look.labelWidth, block.style, size);
  const lineHeight = size + look.leading;
  canvas.ensure(lineHeight);
  canvas.text(block.label, MARGIN.left, flow.cursor, "regular", look.labelSize, MUTED);
  for (const [index, line] of lines.entries()) {
    if (index > 0 && canvas.ensure(lineHeight)) canvas.text(`${block.label} (cont.)`, MARGIN.left, flow.cursor, "regular", look.labelSize, MUTED);
    canvas.text(line.text, MARGIN.left + look.labelWidth, flow.cursor, block.style, size, INK, { direction: line.direction, right: flow.right });
    flow.advance(lineHeight);
  }
  flow.advance(look.after);
}

function eventHeader(canvas: CertificateCanvas): void {
  const { columns, header, inset, size } = STYLE.events;
  const y = canvas.flow.cursor;
  canvas.band(y - header.bandBelow, header.bandHeight);
  let x = MARGIN.left + inset;
  for (const [heading, width] of [
    ["#", columns.index],
    ["Time (UTC, client)", columns.time],
    ["Event", columns.type],
    ["Details", 0],
  ] as const) {
    canvas.text(heading, x, y, "bold", size, MUTED);
    x += width;
  }
  canvas.flow.advance(header.after);
}

function eventRow(canvas: CertificateCanvas, row: EventRow, detailsX: number): void {
  const { columns, inset, size, lineHeight, separator } = STYLE.events;
  const { flow } = canvas;
  const details = canvas.wrap(row.details, flow.right - detailsX, "regular", size);
  // Keep a row on one page unless it is taller than a page by itself.
  if (canvas.ensure(Math.min(details.length, STYLE.events.keptLines) * lineHeight + STYLE.events.rowPadding)) eventHeader(canvas);
  const top = flow.cursor;
  let x = MARGIN.left + inset;
  canvas.text(row.number, x, top, "regular", size, MUTED);
  x += columns.index;
  canvas.text(row.time, x, top, "regular", size);
  x += columns.time;
  canvas.text(row.type, x, top, "bold", size);
  for (const [lineIndex, line] of details.entries()) {
    if (lineIndex > 0 && canvas.ensure(lineHeight)) eventHeader(canvas);
    canvas.text(line.text, detailsX, flow.cursor, "regular", size, INK, { direction: line.direction, right: flow.right });
    flow.advance(lineHeight);
  }
  canvas.rule(flow.cursor + lineHeight - separator.above, BAND, separator.thickness);
  flow.advance(STYLE.events.after);
}

function events(canvas: CertificateCanvas, block: Extract<Block, { kind: "events" }>): void {
  const style = STYLE.events;
  canvas.text(block.note, MARGIN.left, canvas.flow.cursor, "regular", style.noteSize, MUTED);
  canvas.flow.advance(style.noteAfter);
  const { columns, inset } = style;
  const detailsX = MARGIN.left + inset + columns.index + columns.time + columns.type;
  eventHeader(canvas);
  for (const row of block.rows) eventRow(canvas, row, detailsX);
}

function paragraphs(canvas: CertificateCanvas, block: Extract<Block, { kind: "paragraphs" }>): void {
  const style = STYLE.verify;
  const { flow } = canvas;
  for (const paragraph of block.lines) {
    for (const wrapped of canvas.wrap(paragraph, flow.contentWidth, "regular", style.size)) {
      canvas.ensure(style.lineHeight);
      canvas.text(wrapped.text, MARGIN.left, flow.cursor, "regular", style.size, INK);
      flow.advance(style.lineHeight);
    }
  }
}

/** drawBlocks draws the blocks in order, flowing onto as many pages as they need. */
export function drawBlocks(canvas: CertificateCanvas, blocks: readonly Block[]): void {
  for (const [index, block] of blocks.entries()) {
    switch (block.kind) {
      case "title":
        title(canvas, block);
        break;
      case "section":
        section(canvas, block.title, keepWith(blocks[index + 1]));
        break;
      case "field":
        field(canvas, block);
        break;
      case "events":
        events(canvas, block);
        break;
      case "paragraphs":
        paragraphs(canvas, block);
    }
  }
}

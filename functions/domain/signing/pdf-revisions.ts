import { inflateSync } from "node:zlib";

/**
 * Revision is one incremental update of a PDF (revision 0 is the original file): where its bytes
 * end, and which objects its cross-reference section(s) wrote or freed.
 */
export interface Revision {
  index: number;
  /** Offset just after this revision's %%EOF line: the file as it was after this update. */
  end: number;
  /** Objects ("num gen") this revision's cross-reference section defines. */
  written: Set<string>;
  /** Objects this revision's section marks free (object 0 aside). */
  freed: Set<string>;
  /** Objects in use after this revision (its sections merged over the earlier ones). */
  inUse: Set<string>;
}

interface XrefSection {
  offset: number;
  used: Set<string>;
  freed: Set<string>;
  prev?: number;
  xrefStm?: number;
}

/** RevisionError says the cross-reference chain could not be read (the analysis then reports "other"). */
class RevisionError extends Error {}

const MAX_SECTIONS = 10_000;

function intAfter(dictText: string, key: string): number | undefined {
  const match = new RegExp(`/${key}\\s+(\\d+)(?![\\d.]|\\s+\\d+\\s+R)`).exec(dictText);
  return match ? Number(match[1]) : undefined;
}

function numbersAfter(dictText: string, key: string): number[] | undefined {
  const match = new RegExp(`/${key}\\s*\\[([\\d\\s]*)\\]`).exec(dictText);
  return match ? match[1]!.trim().split(/\s+/).filter(Boolean).map(Number) : undefined;
}

/** dictionaryEnd finds the end of the dictionary starting at `start` ("<<"), skipping strings. */
function dictionaryEnd(text: string, start: number): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const char = text[at];
    if (char === "(") {
      let nesting = 0;
      for (; at < text.length; at++) {
        if (text[at] === "\\") at++;
        else if (text[at] === "(") nesting++;
        else if (text[at] === ")" && --nesting === 0) break;
      }
    } else if (char === "<" && text[at + 1] === "<") {
      depth++;
      at++;
    } else if (char === ">" && text[at + 1] === ">") {
      depth--;
      at++;
      if (depth === 0) return at + 1;
    }
  }
  throw new RevisionError("an unterminated dictionary in a cross-reference section");
}

function readTable(text: string, offset: number): XrefSection {
  const section: XrefSection = { offset, used: new Set(), freed: new Set() };
  const trailerAt = text.indexOf("trailer", offset);
  if (trailerAt < 0) throw new RevisionError("a cross-reference table without a trailer");
  const lines = text.slice(offset + 4, trailerAt).split(/\r\n|\r|\n/);
  let next = 0;
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    const header = /^(\d+)\s+(\d+)$/.exec(line);
    if (header) {
      next = Number(header[1]);
      continue;
    }
    const entry = /^(\d{1,10})\s+(\d{1,5})\s+([nf])$/.exec(line);
    if (!entry) throw new RevisionError("a malformed cross-reference table entry");
    const key = `${next} ${Number(entry[2])}`;
    if (entry[3] === "n") section.used.add(key);
    else if (next !== 0) section.freed.add(`${next} ${Math.max(0, Number(entry[2]) - 1)}`);
    next++;
  }
  const dictStart = text.indexOf("<<", trailerAt);
  const dict = text.slice(dictStart, dictionaryEnd(text, dictStart));
  const prev = intAfter(dict, "Prev");
  const xrefStm = intAfter(dict, "XRefStm");
  if (prev !== undefined) section.prev = prev;
  if (xrefStm !== undefined) section.xrefStm = xrefStm;
  return section;
}

/** unpredict undoes the PNG predictors (10-15) an xref stream's /DecodeParms may name. */
function unpredict(data: Buffer, columns: number): Buffer {
  const rowLength = columns + 1;
  const rows = Math.floor(data.length / rowLength);
  const out = Buffer.alloc(rows * columns);
  for (let row = 0; row < rows; row++) {
    const filter = data[row * rowLength]!;
    for (let column = 0; column < columns; column++) {
      const raw = data[row * rowLength + 1 + column]!;
      const left = column > 0 ? out[row * columns + column - 1]! : 0;
      const up = row > 0 ? out[(row - 1) * columns + column]! : 0;
      const upLeft = row > 0 && column > 0 ? out[(row - 1) * columns + column - 1]! : 0;
      let value = raw;
      if (filter === 1) value = raw + left;
      else if (filter === 2) value = raw + up;
      else if (filter === 3) value = raw + Math.floor((left + up) / 2);
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      }
      out[row * columns + column] = value & 0xff;
    }
  }
  return out;
}

function readStream(bytes: Buffer, text: string, offset: number): XrefSection {
  const header = /^\s*(\d+)\s+(\d+)\s+obj\s*/.exec(text.slice(offset, offset + 64));
  if (!header) throw new RevisionError("no cross-reference section where startxref points");
  const dictStart = offset + header[0].length;
  const dictEnd = dictionaryEnd(text, dictStart);
  const dict = text.slice(dictStart, dictEnd);
  if (!/\/Type\s*\/XRef/.test(dict)) throw new RevisionError("the object at a startxref offset is not a cross-reference stream");
  const streamKeyword = /^\s*stream\r?\n/.exec(text.slice(dictEnd, dictEnd + 16));
  const length = intAfter(dict, "Length");
  if (!streamKeyword || length === undefined) throw new RevisionError("a cross-reference stream without data");
  const dataStart = dictEnd + streamKeyword[0].length;
  let data: Buffer = bytes.subarray(dataStart, dataStart + length);
  if (/\/Filter\s*\[?\s*\/FlateDecode/.test(dict)) data = inflateSync(data);
  else if (/\/Filter/.test(dict)) throw new RevisionError("a cross-reference stream with an unsupported filter");
  const widths = numbersAfter(dict, "W");
  if (!widths || widths.length < 3) throw new RevisionError("a cross-reference stream without /W");
  const [w1, w2, w3] = widths as [number, number, number];
  const rowWidth = w1 + w2 + w3;
  if ((intAfter(dict, "Predictor") ?? 1) >= 10) data = unpredict(data, intAfter(dict, "Columns") ?? rowWidth);
  const size = intAfter(dict, "Size") ?? 0;
  const index = numbersAfter(dict, "Index") ?? [0, size];
  const field = (at: number, width: number) => {
    let value = 0;
    for (let byte = 0; byte < width; byte++) value = value * 256 + data[at + byte]!;
    return value;
  };
  const section: XrefSection = { offset, used: new Set(), freed: new Set() };
  let at = 0;
  for (let pair = 0; pair + 1 < index.length; pair += 2) {
    for (let number = index[pair]!; number < index[pair]! + index[pair + 1]!; number++, at += rowWidth) {
      if (at + rowWidth > data.length) throw new RevisionError("a truncated cross-reference stream");
      const type = w1 === 0 ? 1 : field(at, w1);
      const third = field(at + w1 + w2, w3);
      if (type === 1) section.used.add(`${number} ${third}`);
      else if (type === 2) section.used.add(`${number} 0`);
      else if (type === 0 && number !== 0) section.freed.add(`${number} ${Math.max(0, third - 1)}`);
    }
  }
  const prev = intAfter(dict, "Prev");
  if (prev !== undefined) section.prev = prev;
  return section;
}

function readSection(bytes: Buffer, text: string, offset: number): XrefSection {
  if (offset < 0 || offset >= bytes.length) throw new RevisionError("a cross-reference offset outside the file");
  return /^\s*xref/.test(text.slice(offset, offset + 16)) ? readTable(text, offset + text.slice(offset).search(/xref/)) : readStream(bytes, text, offset);
}

/** revisionEnd is the offset after the first %%EOF line following `from`. */
function revisionEnd(text: string, from: number): number {
  const at = text.indexOf("%%EOF", from);
  if (at < 0) throw new RevisionError("a cross-reference section without %%EOF after it");
  let end = at + 5;
  if (text[end] === "\r") end++;
  if (text[end] === "\n") end++;
  return end;
}

/**
 * readRevisions reads a PDF's cross-reference chain (tables, streams and hybrid files) from the
 * last startxref back through /Prev, and returns the revisions oldest first.
 */
export function readRevisions(bytes: Buffer): Revision[] {
  const text = bytes.toString("latin1");
  const startxref = text.lastIndexOf("startxref");
  const match = startxref < 0 ? null : /^startxref\s+(\d+)/.exec(text.slice(startxref, startxref + 40));
  if (!match) throw new RevisionError("no startxref");
  const sections: XrefSection[] = [];
  const seen = new Set<number>();
  for (let offset: number | undefined = Number(match[1]); offset !== undefined; ) {
    if (seen.has(offset) || sections.length > MAX_SECTIONS) throw new RevisionError("a cross-reference chain that loops");
    seen.add(offset);
    const section = readSection(bytes, text, offset);
    if (section.xrefStm !== undefined) {
      const hybrid = readStream(bytes, text, section.xrefStm);
      for (const key of hybrid.used) if (!section.used.has(key)) section.used.add(key);
    }
    sections.push(section);
    offset = section.prev;
  }
  sections.reverse();
  const revisions: Revision[] = [];
  const inUse = new Set<string>();
  for (const section of sections) {
    const end = revisionEnd(text, section.offset);
    for (const key of section.freed) inUse.delete(key);
    for (const key of section.used) inUse.add(key);
    const last = revisions.at(-1);
    if (last && last.end >= end) {
      // A linearized file's first-page section and its main section form one revision.
      for (const key of section.used) last.written.add(key);
      last.inUse = new Set(inUse);
      continue;
    }
    revisions.push({ index: revisions.length, end, written: new Set(section.used), freed: new Set(section.freed), inUse: new Set(inUse) });
  }
  return revisions;
}

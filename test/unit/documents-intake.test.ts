// intake(): one read of each container. A DOCX's zip directory is parsed once however many checks
// look at it, and a compound file whose allocation table runs past the header's 109 entries (DIFAT
// sectors) is read whole: the reader shared/ole.ts used to stop at the header's part of it.
import { describe, expect, it } from "vitest";
import { CompoundFile } from "#domain/shared/compound-file.ts";
import { conversionJob } from "#domain/documents/converter.ts";
import { intake, PreparedDocument } from "#domain/documents/intake.ts";
import { ZipContainer } from "#domain/shared/zip-container.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { altChunkDocx, readingSvg } from "#test/helpers/scrub-vectors.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";

const MB = 1024 * 1024;
const limits = { maxDocumentBytes: 25 * MB, maxEntries: 5000, maxUncompressedBytes: 200 * MB, maxImagePixels: 100_000_000, maxSvgBytes: 10 * MB };

const END = 0xfffffffe;
const FREE = 0xffffffff;

/** Stream is one stream of a synthetic compound file. */
interface Stream {
  name: string;
  bytes: Buffer;
}

/** layout counts the FAT and DIFAT sectors a file of `data` other sectors needs (512-byte sectors). */
function layout(data: number): { fat: number; difat: number } {
  let fat = 1;
  let difat = 0;
  for (;;) {
    const total = fat + difat + data;
    const needFat = Math.ceil(total / 128);
    const needDifat = Math.max(0, Math.ceil((needFat - 109) / 127));
    if (needFat === fat && needDifat === difat) return { fat, difat };
    fat = needFat;
    difat = needDifat;
  }
}

/**
 * bigCompoundFile writes a version-3 compound file (512-byte sectors): FAT sectors, DIFAT sectors,
 * the streams (each at least 4096 bytes, so none lives in the mini stream), then a two-sector
 * directory at the very end, whose second sector holds the streams after the third. Past 7 MB the
 * FAT needs more than the header's 109 entries, so the link from the first directory sector to
 * the second lies in a FAT sector that only a DIFAT sector names.
 */
function bigCompoundFile(streams: Stream[]): Buffer {
  const sectorsOf = (bytes: number) => Math.ceil(bytes / 512);
  const dataSectors = streams.reduce((sum, stream) => sum + sectorsOf(stream.bytes.length), 0) + 2;
  const { fat, difat } = layout(dataSectors);
  const total = fat + difat + dataSectors;
  const out = Buffer.alloc(512 * (total + 1));
  const table = new Uint32Array(fat * 128).fill(FREE);
  for (let i = 0; i < fat; i++) table[i] = 0xfffffffd;
  for (let i = fat; i < fat + difat; i++) table[i] = 0xfffffffc;
  const chain = (start: number, count: number) => {
    for (let i = 0; i < count; i++) table[start + i] = i === count - 1 ? END : start + i + 1;
  };
  let next = fat + difat;
  const starts = streams.map((stream) => {
    const start = next;
    stream.bytes.copy(out, (start + 1) * 512);
    chain(start, sectorsOf(stream.bytes.length));
    next += sectorsOf(stream.bytes.length);
    return start;
  });
  const directory = next;
  chain(directory, 2);
  // Header.
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(out, 0);
  out.writeUInt16LE(0x3e, 24);
  out.writeUInt16LE(3, 26);
  out.writeUInt16LE(0xfffe, 28);
  out.writeUInt16LE(9, 30);
  out.writeUInt16LE(6, 32);
  out.writeUInt32LE(fat, 44);
  out.writeUInt32LE(directory, 48);
  out.writeUInt32LE(4096, 56);
  out.writeUInt32LE(END, 60);
  out.writeUInt32LE(difat > 0 ? fat : END, 68);
  out.writeUInt32LE(difat, 72);
  for (let i = 0; i < 109; i++) out.writeUInt32LE(i < fat ? i : FREE, 76 + i * 4);
  // DIFAT sectors: 127 FAT sector numbers each, then the next DIFAT sector.
  for (let d = 0; d < difat; d++) {
    const at = (fat + d + 1) * 512;
    for (let i = 0; i < 127; i++) {
      const index = 109 + d * 127 + i;
      out.writeUInt32LE(index < fat ? index : FREE, at + i * 4);
    }
    out.writeUInt32LE(d + 1 < difat ? fat + d + 1 : END, at + 508);
  }
  for (let i = 0; i < fat; i++) for (let j = 0; j < 128; j++) out.writeUInt32LE(table[i * 128 + j]!, (i + 1) * 512 + j * 4);
  // Directory: the root, two empty slots after the first stream, the other streams in sector two.
  const entries = [
    { name: "Root Entry", type: 5, start: END, size: 0 },
    ...streams.map((stream, i) => ({ name: stream.name, type: 2, start: starts[i]!, size: stream.bytes.length })),
  ];
  const slots = [entries[0]!, entries[1]!, undefined, undefined, ...entries.slice(2)];
  slots.forEach((entry, i) => {
    if (!entry) return;
    const at = (directory + 1) * 512 + i * 128;
    for (let c = 0; c < entry.name.length; c++) out.writeUInt16LE(entry.name.charCodeAt(c), at + c * 2);
    out.writeUInt16LE((entry.name.length + 1) * 2, at + 64);
    out[at + 66] = entry.type;
    out.writeUInt32LE(FREE, at + 68);
    out.writeUInt32LE(FREE, at + 72);
    out.writeUInt32LE(FREE, at + 76);
    out.writeUInt32LE(entry.start, at + 116);
    out.writeUInt32LE(entry.size, at + 120);
  });
  return out;
}

/** fib is the start of a WordDocument stream: wIdent 0xA5EC and the fEncrypted flag. */
function fib(encrypted: boolean): Buffer {
  const bytes = Buffer.alloc(4096);
  bytes.writeUInt16LE(0xa5ec, 0);
  bytes[0x0b] = encrypted ? 0x01 : 0x00;
  return bytes;
}

describe("the compound file reader follows the whole allocation table", () => {
  const filler = { name: "Data", bytes: Buffer.alloc(7.5 * MB, 0x20) };

  it("finds a stream whose directory entry lies behind a FAT sector only a DIFAT sector names", async () => {
    const bytes = bigCompoundFile([filler, { name: "WordDocument", bytes: fib(false) }, { name: "1Table", bytes: Buffer.alloc(4096, 1) }]);
    expect(bytes.readUInt32LE(72)).toBeGreaterThan(0); // DIFAT sectors are needed
    expect(bytes.readUInt32LE(48)).toBeGreaterThan(109 * 128); // the directory's FAT entries are past the header's part
    const file = await CompoundFile.open(bytes, ".doc file");
    expect(file.names).toEqual(["Root Entry", "Data", "WordDocument", "1Table"]);
    expect(file.kind()).toBe("word");
    const streams = await file.streams();
    expect(streams.map((stream) => [stream.name, stream.bytes.length])).toEqual([
      ["Data", filler.bytes.length],
      ["WordDocument", 4096],
      ["1Table", 4096],
    ]);
    expect(streams[1]!.bytes.equals(fib(false))).toBe(true);
    // Through intake: a .doc, not "an OLE container without a WordDocument stream".
    expect((await intake(bytes, "doc", limits)).format).toBe("doc");
    // A password-protected one is told apart the same way.
    const locked = bigCompoundFile([filler, { name: "WordDocument", bytes: fib(true) }]);
    await expectSignetError(intake(locked, "doc", limits), "ENCRYPTED_DOCUMENT");
  });

  it("refuses a file whose DIFAT chain is cut (only the header's 109 FAT sectors left) as damaged", async () => {
    const bytes = bigCompoundFile([filler, { name: "WordDocument", bytes: fib(false) }]);
    bytes.writeUInt32LE(END, 68);
    const error = await expectSignetError(CompoundFile.open(bytes, ".doc file"), "INVALID_DOCUMENT");
    expect(error.message).toBe("The .doc file is damaged (the allocation table is incomplete); save it again from a word processor and upload it again.");
  });
});

describe("intake reads each container once", () => {
  it("parses a DOCX's zip directory once for every check, and not at all when handed the directory", async () => {
    const docx = fixtureDocx();
    const before = ZipContainer.directoriesRead;
    const prepared = await intake(docx, "docx", limits);
    expect(ZipContainer.directoriesRead - before).toBe(1);
    expect(prepared.zip?.bytes).toBe(docx);
    expect(prepared.removed).toEqual([]);
    // resolveDocument's directory, handed on (as signDocument does): no second parse.
    const zip = ZipContainer.open(docx, limits);
    const opened = ZipContainer.directoriesRead;
    const again = await intake(zip, "docx", limits);
    expect(ZipContainer.directoriesRead - opened).toBe(0);
    expect(again.zip).toBe(zip);
    // The converter's job carries the same entries (the adapter reads no directory either).
    expect(conversionJob(again, { to: "pdf" }).entries).toBe(zip.entries);
  });

  it("reads a rewritten package's directory once more: the bytes LibreOffice gets are a new package", async () => {
    const docx = altChunkDocx({ inner: "docx", svg: readingSvg("/tmp/signet-canary/canary.png") });
    const before = ZipContainer.directoriesRead;
    const prepared = await intake(docx, "docx", limits);
    expect(prepared.removed.length).toBeGreaterThan(0);
    expect(prepared.bytes).not.toBe(docx);
    expect(prepared.zip?.bytes).toBe(prepared.bytes);
    // The upload, the embedded document, and the rewrite of each.
    expect(ZipContainer.directoriesRead - before).toBe(4);
  });

  it("is the only maker of a PreparedDocument", () => {
    const make = PreparedDocument.make as unknown as (...args: unknown[]) => PreparedDocument;
    expect(() => make(Symbol("intake"), "docx", Buffer.alloc(1), { kind: "text" }, [])).toThrow("A PreparedDocument is made by intake() only.");
  });
});

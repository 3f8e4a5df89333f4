// Word 97-2003 (.doc) test files: the committed fixtures (test/fixtures/doc, see its README) and
// a compound file altered the way a hostile one would be.
import { readFileSync } from "node:fs";

/** docFixture reads one of the committed .doc files. */
export const docFixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/doc/${name}`, import.meta.url));

/** pointStreamsAt is a copy of a compound file whose every other stream entry claims the target stream's sectors and size. */
export function pointStreamsAt(doc: Buffer, target: string): Buffer {
  const copy = Buffer.from(doc);
  const size = 1 << copy.readUInt16LE(30);
  const fatAt = (copy.readUInt32LE(76) + 1) * size;
  const entries: number[] = [];
  for (let sector = copy.readUInt32LE(48); sector < 0xfffffffa; sector = copy.readUInt32LE(fatAt + sector * 4)) {
    for (let at = (sector + 1) * size; at < (sector + 2) * size; at += 128) entries.push(at);
  }
  const nameAt = (at: number) => copy.toString("utf16le", at, at + Math.max(0, copy.readUInt16LE(at + 64) - 2));
  const source = entries.find((at) => nameAt(at) === target)!;
  for (const at of entries) if (copy[at + 66] === 2 && at !== source) copy.copy(copy, at + 116, source + 116, source + 124);
  return copy;
}

/**
 * sharedChainDoc builds a compound file (4096-byte sectors) of about `bytes` whose `entries` stream
 * entries all start at one chain running through the whole file, each declaring an equal share of
 * it: the byte-sum check passes, yet reading every chain whole copies the file once per entry (a
 * 21 MB file with 100 entries held the event loop 19.6 s and grew the server to 2.5 GB). The first
 * entry is named WordDocument, so the file reads as a Word 97-2003 document.
 */
export function sharedChainDoc(bytes = 21 * 1024 * 1024, entries = 100): Buffer {
  const size = 4096;
  const perSector = size / 4;
  const dataSectors = Math.ceil(bytes / size);
  const dirSectors = Math.ceil((entries + 1) / (size / 128));
  let fatSectors = 1;
  while (fatSectors * perSector < fatSectors + dirSectors + dataSectors) fatSectors++;
  if (fatSectors > 109) throw new Error("sharedChainDoc: too large for the header's DIFAT");
  const total = fatSectors + dirSectors + dataSectors;
  const file = Buffer.alloc((total + 1) * size);
  // Header ([MS-CFB] 2.2): version 4, 4096-byte sectors, no mini stream, no DIFAT sectors.
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(file, 0);
  file.writeUInt16LE(0x3e, 24);
  file.writeUInt16LE(4, 26);
  file.writeUInt16LE(0xfffe, 28);
  file.writeUInt16LE(12, 30);
  file.writeUInt16LE(6, 32);
  file.writeUInt32LE(dirSectors, 40);
  file.writeUInt32LE(fatSectors, 44);
  file.writeUInt32LE(fatSectors, 48);
  file.writeUInt32LE(4096, 56);
  file.writeUInt32LE(0xfffffffe, 60);
  file.writeUInt32LE(0xfffffffe, 68);
  for (let i = 0; i < 109; i++) file.writeUInt32LE(i < fatSectors ? i : 0xffffffff, 76 + i * 4);
  const fat = (index: number, next: number) => file.writeUInt32LE(next, size + index * 4);
  for (let i = 0; i < fatSectors * perSector; i++) fat(i, 0xffffffff);
  for (let i = 0; i < fatSectors; i++) fat(i, 0xfffffffd);
  const chain = (first: number, count: number) => {
    for (let i = 0; i < count; i++) fat(first + i, i === count - 1 ? 0xfffffffe : first + i + 1);
  };
  chain(fatSectors, dirSectors);
  const dataStart = fatSectors + dirSectors;
  chain(dataStart, dataSectors);
  const entry = (index: number, name: string, type: number, start: number, length: number) => {
    const at = (fatSectors + 1) * size + index * 128;
    file.write(name, at, "utf16le");
    file.writeUInt16LE((name.length + 1) * 2, at + 64);
    file[at + 66] = type;
    for (const link of [68, 72, 76]) file.writeUInt32LE(0xffffffff, at + link);
    if (type === 5) file.writeUInt32LE(1, at + 76);
    else if (index < entries) file.writeUInt32LE(index + 1, at + 72);
    file.writeUInt32LE(start, at + 116);
    file.writeUInt32LE(length, at + 120);
  };
  entry(0, "Root Entry", 5, 0xfffffffe, 0);
  const share = Math.floor((dataSectors * size) / entries);
  for (let i = 1; i <= entries; i++) entry(i, i === 1 ? "WordDocument" : `Stream${i}`, 2, dataStart, share);
  return file;
}

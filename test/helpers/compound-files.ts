// Word 97-2003 (.doc) test files: the committed fixtures (test/fixtures/doc, see its README) and
// a compound file altered the way a hostile one would be.
import { readFileSync } from "node:fs";

/** docFixture reads one of the committed .doc files. */
export const docFixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/doc/${name}`, import.meta.url));

/** pointStreamsAt is a copy of a compound file whose every other stream entry claims the target stream's sectors and size. */
export function pointStreamsAt(doc: Buffer, target: string): Buffer {
  const out = Buffer.from(doc);
  const size = 1 << out.readUInt16LE(30);
  const fatAt = (out.readUInt32LE(76) + 1) * size;
  const entries: number[] = [];
  for (let sector = out.readUInt32LE(48); sector < 0xfffffffa; sector = out.readUInt32LE(fatAt + sector * 4)) {
    for (let at = (sector + 1) * size; at < (sector + 2) * size; at += 128) entries.push(at);
  }
  const nameAt = (at: number) => out.toString("utf16le", at, at + Math.max(0, out.readUInt16LE(at + 64) - 2));
  const source = entries.find((at) => nameAt(at) === target)!;
  for (const at of entries) if (out[at + 66] === 2 && at !== source) out.copy(out, at + 116, source + 116, source + 124);
  return out;
}

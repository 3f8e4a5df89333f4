/**
 * oleStreamNames lists the stream and storage names in an OLE compound file (CFB) directory: enough
 * to tell an encrypted Office file ("EncryptedPackage", "EncryptionInfo") from a Word 97 document
 * ("WordDocument"). Returns undefined when the bytes are not a readable compound file.
 */
export function oleStreamNames(bytes: Uint8Array): string[] | undefined {
  const directory = readDirectory(bytes);
  return directory?.map((entry) => entry.name);
}

/**
 * wordDocumentEncrypted tells whether a Word 97-2003 file is password-protected (FIB flag
 * fEncrypted), or undefined when the WordDocument stream cannot be read.
 */
export function wordDocumentEncrypted(bytes: Uint8Array): boolean | undefined {
  const layout = readLayout(bytes);
  const directory = readDirectory(bytes);
  const word = directory?.find((entry) => entry.name === "WordDocument");
  if (!layout || !word || word.size < 4096) return undefined; // small streams live in the mini stream; Word's never do
  const offset = (word.start + 1) * layout.sectorSize;
  if (offset + 12 > bytes.length) return undefined;
  // FIB base: wIdent 0xA5EC, then at 0x0A the flags word whose bit 8 is fEncrypted.
  if (bytes[offset] !== 0xec || bytes[offset + 1] !== 0xa5) return undefined;
  return ((bytes[offset + 0x0b] ?? 0) & 0x01) === 1;
}

/**
 * OleKind is what an OLE compound file holds, as far as Signet cares: an encrypted Office file (an
 * OOXML package under EncryptedPackage/EncryptionInfo, or a Word 97 file with fEncrypted set), a
 * plain Word 97-2003 document, another OLE file, or bytes that are no readable compound file.
 */
export type OleKind = "encrypted" | "word" | "other" | "unreadable";

/** oleKind classifies an OLE compound file with oleStreamNames and wordDocumentEncrypted. */
export function oleKind(bytes: Uint8Array): OleKind {
  const names = oleStreamNames(bytes);
  if (!names) return "unreadable";
  if (names.includes("EncryptedPackage") || names.includes("EncryptionInfo")) return "encrypted";
  if (!names.includes("WordDocument")) return "other";
  return wordDocumentEncrypted(bytes) ? "encrypted" : "word";
}

interface Layout {
  sectorSize: number;
  fat: number[];
  firstDirSector: number;
}

interface DirEntry {
  name: string;
  start: number;
  size: number;
}

const END = 0xfffffffe;
const MAX_SECTORS = 1 << 20;

function readLayout(bytes: Uint8Array): Layout | undefined {
  if (bytes.length < 512 || bytes[0] !== 0xd0 || bytes[1] !== 0xcf || bytes[2] !== 0x11 || bytes[3] !== 0xe0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shift = view.getUint16(30, true);
  if (shift !== 9 && shift !== 12) return undefined;
  const sectorSize = 1 << shift;
  const fatSectors = view.getUint32(44, true);
  const firstDirSector = view.getUint32(48, true);
  // The first 109 FAT sector numbers are in the header; larger files (DIFAT chains) are not needed
  // to find the directory of an Office document in practice, so they are skipped.
  const fat: number[] = [];
  for (let i = 0; i < Math.min(fatSectors, 109); i++) {
    const sector = view.getUint32(76 + i * 4, true);
    const offset = (sector + 1) * sectorSize;
    if (offset + sectorSize > bytes.length) break;
    for (let j = 0; j < sectorSize; j += 4) fat.push(view.getUint32(offset + j, true));
  }
  return { sectorSize, fat, firstDirSector };
}

function readDirectory(bytes: Uint8Array): DirEntry[] | undefined {
  const layout = readLayout(bytes);
  if (!layout) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: DirEntry[] = [];
  const seen = new Set<number>();
  let sector = layout.firstDirSector;
  while (sector < END && !seen.has(sector) && seen.size < MAX_SECTORS) {
    seen.add(sector);
    const offset = (sector + 1) * layout.sectorSize;
    if (offset + layout.sectorSize > bytes.length) break;
    for (let e = offset; e < offset + layout.sectorSize; e += 128) {
      const nameLength = view.getUint16(e + 64, true);
      const type = bytes[e + 66];
      if (type === 0 || nameLength < 2 || nameLength > 64) continue;
      let name = "";
      for (let c = 0; c < nameLength - 2; c += 2) name += String.fromCharCode(view.getUint16(e + c, true));
      entries.push({ name, start: view.getUint32(e + 116, true), size: view.getUint32(e + 120, true) });
    }
    sector = layout.fat[sector] ?? END;
  }
  return entries;
}

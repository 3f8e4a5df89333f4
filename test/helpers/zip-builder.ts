import { deflateRawSync } from "node:zlib";
import { crc32 } from "node:zlib";

/** ZipInput is one file to put into a test zip. */
export interface ZipInput {
  name: string;
  data: Buffer | string;
  /** Lie about the uncompressed size in the central directory (zip-bomb tests). */
  declaredSize?: number;
  /** Store the data instead of deflating it. */
  stored?: boolean;
  /** Set the encrypted flag (general purpose bit 0) in both headers. */
  encrypted?: boolean;
  /** Write this extra-field length into the local header without adding extra bytes (crafted zips). */
  localExtraLength?: number;
  /** Write this compression method into both headers (the data is still deflated or stored). */
  method?: number;
}

/** buildZip writes a minimal, valid zip (DEFLATE unless stored) from the given files; options craft invalid ones. */
export function buildZip(files: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const data = Buffer.isBuffer(file.data) ? file.data : Buffer.from(file.data, "utf8");
    const compressed = file.stored ? data : deflateRawSync(data);
    const method = file.method ?? (file.stored ? 0 : 8);
    const flags = file.encrypted ? 1 : 0;
    const name = Buffer.from(file.name, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(file.localExtraLength ?? 0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(file.declaredSize ?? data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** minimalDocx is the smallest zip that detection treats as a DOCX. */
export function minimalDocx(): Buffer {
  return buildZip([
    { name: "[Content_Types].xml", data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    {
      name: "word/document.xml",
      data: '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body/></w:document>',
    },
  ]);
}

import { inflateRawSync } from "node:zlib";
import PizZip from "pizzip";
import { SignetError } from "#domain/errors.ts";
import { readZipDirectory, type ZipLimits } from "#domain/zip.ts";

const LOCAL_HEADER = 0x04034b50;
const textDecoder = new TextDecoder("utf-8", { fatal: false });

/**
 * DocxPackage holds the parts of a DOCX in memory. It is read with our own bounded inflater (every
 * entry is inflated with a hard output cap, so a zip whose declared sizes lie cannot bomb memory)
 * and written with pizzip using DEFLATE.
 */
export class DocxPackage {
  private readonly parts = new Map<string, Uint8Array | string>();

  private constructor() {}

  /** DocxPackage.read loads a DOCX after the entry-count and size guards of SPEC 7. */
  static read(bytes: Uint8Array, limits: ZipLimits): DocxPackage {
    const entries = readZipDirectory(bytes, limits);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const pkg = new DocxPackage();
    let budget = limits.maxUncompressedBytes;
    for (const entry of entries) {
      if (entry.name.endsWith("/")) continue;
      if (entry.encrypted) throw new SignetError("ENCRYPTED_DOCUMENT", "The DOCX has encrypted entries; remove the password and save it again.");
      const at = entry.localHeaderOffset;
      if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL_HEADER) throw invalid(`entry ${entry.name} has no local header`);
      const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
      const end = start + entry.compressedSize;
      if (end > bytes.length) throw invalid(`entry ${entry.name} is truncated`);
      const raw = bytes.subarray(start, end);
      let data: Uint8Array;
      if (entry.method === 0) {
        data = raw;
      } else if (entry.method === 8) {
        data = inflateBounded(raw, Math.min(entry.uncompressedSize, budget), entry.name);
      } else {
        throw invalid(`entry ${entry.name} uses unsupported compression method ${entry.method}`);
      }
      if (data.length !== entry.uncompressedSize) throw invalid(`entry ${entry.name} does not match its declared size`);
      budget -= data.length;
      pkg.parts.set(entry.name, data);
    }
    if (!pkg.has("word/document.xml")) throw new SignetError("INVALID_DOCUMENT", "The DOCX has no word/document.xml.");
    return pkg;
  }

  /** has tells whether a part exists. */
  has(name: string): boolean {
    return this.parts.has(name);
  }

  /** names lists every part name in package order. */
  names(): string[] {
    return [...this.parts.keys()];
  }

  /** text returns a part decoded as UTF-8 (undefined when absent). */
  text(name: string): string | undefined {
    const part = this.parts.get(name);
    if (part === undefined) return undefined;
    if (typeof part === "string") return part;
    const decoded = textDecoder.decode(part);
    return decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  }

  /** set replaces or adds a part. */
  set(name: string, data: Uint8Array | string): void {
    this.parts.set(name, data);
  }

  /** toZip builds a pizzip instance holding every part (docxtemplater works on one). */
  toZip(): PizZip {
    const zip = new PizZip();
    for (const [name, data] of this.parts) zip.file(name, typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    return zip;
  }

  /** toBuffer writes the package as a DEFLATE-compressed zip. */
  toBuffer(): Buffer {
    return this.toZip().generate({ type: "nodebuffer", compression: "DEFLATE" });
  }
}

function inflateBounded(raw: Uint8Array, cap: number, name: string): Uint8Array {
  try {
    // maxOutputLength stops inflation at the declared size: a lying header cannot make us inflate more.
    return inflateRawSync(raw, { maxOutputLength: Math.max(1, cap) });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new SignetError("PAYLOAD_TOO_LARGE", `The DOCX entry ${name} inflates beyond its declared size or the size limit; it is refused as a possible zip bomb.`);
    }
    throw invalid(`entry ${name} cannot be inflated`);
  }
}

function invalid(why: string): SignetError {
  return new SignetError("INVALID_DOCUMENT", `The document is not a valid DOCX package (${why}).`);
}

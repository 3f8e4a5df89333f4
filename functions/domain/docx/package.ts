import PizZip from "pizzip";
import { SignetError } from "#domain/shared/errors.ts";
import { readZipDirectory, readZipEntryAsync, unsafeEntryName, writeZip, ZipContainer, type ZipLimits } from "#domain/shared/zip-container.ts";

const textDecoder = new TextDecoder("utf-8", { fatal: false });

/**
 * checkEntryNames refuses a package with an unsafe entry name (see unsafeEntryName) or two entries
 * of the same name (readers disagree on which one counts), naming the entry: the filled DOCX would
 * otherwise carry it on to whoever unpacks it.
 */
function checkEntryNames(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    const why = unsafeEntryName(name) ?? (seen.has(name) ? "appears twice" : undefined);
    if (why) {
      throw new SignetError(
        "INVALID_DOCUMENT",
        `The DOCX has a zip entry named ${JSON.stringify(name)}, which ${why}; save the document again from Word or LibreOffice.`,
        {
          details: [{ field: "document", issue: `zip entry ${JSON.stringify(name)} ${why}` }],
        },
      );
    }
    seen.add(name);
  }
}

/**
 * DocxPackage holds the parts of a DOCX in memory. It is read with our own bounded inflater (every
 * entry is inflated with a hard output cap, so a zip whose declared sizes lie cannot bomb memory)
 * and written with pizzip using DEFLATE.
 */
export class DocxPackage {
  private readonly parts = new Map<string, Uint8Array | string>();

  private constructor() {}

  /**
   * DocxPackage.read loads a DOCX after the entry-count and size guards of docs/configuration.md
   * (inflating off the event loop). Given a ZipContainer (a document already checked, whose
   * directory was read within the same limits), its entries are taken instead of reading them again.
   */
  static async read(source: Uint8Array | ZipContainer, limits: ZipLimits): Promise<DocxPackage> {
    const bytes = source instanceof ZipContainer ? source.bytes : source;
    const entries = source instanceof ZipContainer ? source.entries : readZipDirectory(bytes, limits);
    checkEntryNames(entries.map((entry) => entry.name));
    const pkg = new DocxPackage();
    let budget = limits.maxUncompressedBytes;
    for (const entry of entries) {
      if (entry.name.endsWith("/")) continue;
      const data = await readZipEntryAsync(bytes, entry, budget, "DOCX");
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

  /** bytes returns a part's bytes (UTF-8 for a part held as text; undefined when absent). */
  bytes(name: string): Uint8Array | undefined {
    const part = this.parts.get(name);
    return typeof part === "string" ? Buffer.from(part, "utf8") : part;
  }

  /** text returns a part decoded as UTF-8 (undefined when absent). */
  text(name: string): string | undefined {
    const part = this.parts.get(name);
    if (part === undefined) return undefined;
    if (typeof part === "string") return part;
    const decoded = textDecoder.decode(part);
    const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
    // Kept decoded: the budget check, the scan and docxtemplater all read the same parts.
    this.parts.set(name, text);
    return text;
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

  /** toBuffer writes the package as a DEFLATE-compressed zip (compressed off the event loop). */
  toBuffer(): Promise<Buffer> {
    return writeZip([...this.parts].map(([name, data]) => ({ name, data: typeof data === "string" ? Buffer.from(data, "utf8") : data })));
  }
}

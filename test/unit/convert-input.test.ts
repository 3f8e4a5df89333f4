import PizZip from "pizzip";
import { describe, expect, it } from "vitest";
import { conversionOptions } from "#domain/documents/conversion-options.ts";
import { intake } from "#domain/documents/intake.ts";
import type { SourceFormat } from "#domain/documents/formats.ts";
import { isSignetError } from "#domain/shared/errors.ts";
import { CompoundFile } from "#domain/shared/compound-file.ts";
import { signDocument, type SignDependencies } from "#domain/signing/sign-document.ts";
import { fixtureDocx, oleFile, wordFile } from "#test/helpers/convert-fixtures.ts";
import { buildZip } from "#test/helpers/zip-builder.ts";

const limits = {
  maxDocumentBytes: 1024 * 1024,
  maxEntries: 100,
  maxUncompressedBytes: 10 * 1024 * 1024,
  maxImagePixels: 100_000_000,
  maxSvgBytes: 1024 * 1024,
};

function codeOf(run: () => unknown): string {
  try {
    run();
    return "ok";
  } catch (error) {
    return isSignetError(error) ? error.code : `unexpected ${String(error)}`;
  }
}

async function asyncCodeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return "ok";
  } catch (error) {
    return isSignetError(error) ? error.code : `unexpected ${String(error)}`;
  }
}

function odt(manifestExtra = "", mimetype = "application/vnd.oasis.opendocument.text"): Buffer {
  const zip = new PizZip();
  zip.file("mimetype", mimetype, { compression: "STORE" });
  zip.file("content.xml", "<office:document-content/>");
  zip.file(
    "META-INF/manifest.xml",
    `<manifest:manifest><manifest:file-entry manifest:full-path="content.xml">${manifestExtra}</manifest:file-entry></manifest:manifest>`,
  );
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

// word/document.xml really inflates to 2 MB but the central directory says 1 KB (within the 10 MB limit).
function lyingDocx(): Buffer {
  return buildZip([
    { name: "[Content_Types].xml", data: "<Types/>" },
    { name: "word/document.xml", data: Buffer.alloc(2 * 1024 * 1024, 0x20), declaredSize: 1024 },
  ]);
}

// Honest sizes, but `mb` MB of parts in total (over the 10 MB limit when mb > 10).
function bigDocx(mb: number): Buffer {
  return buildZip([
    { name: "word/document.xml", data: "<w:document/>" },
    ...Array.from({ length: mb }, (_, i) => ({ name: `word/media/blob${i}.bin`, data: Buffer.alloc(1024 * 1024 + 1) })),
  ]);
}

function craftedOdt(): Buffer {
  return buildZip([
    { name: "mimetype", data: "application/vnd.oasis.opendocument.text", stored: true, localExtraLength: 0xffff },
    { name: "content.xml", data: "<office:document-content/>" },
  ]);
}

function lyingOdt(): Buffer {
  return buildZip([
    { name: "mimetype", data: "application/vnd.oasis.opendocument.text", stored: true },
    { name: "META-INF/manifest.xml", data: "<manifest:manifest/>" },
    { name: "content.xml", data: Buffer.alloc(3 * 1024 * 1024, 0x20), declaredSize: 2048 },
  ]);
}

function zipWith(name: string): Buffer {
  const zip = new PizZip();
  zip.file(name, "x");
  return zip.generate({ type: "nodebuffer" });
}

describe("conversionOptions", () => {
  const rows: Array<[Record<string, string>, string]> = [
    [{ from: "docx", to: "pdf" }, "ok"],
    [{ from: "docx", to: "pdf", pdfa: "2b" }, "ok"],
    [{ from: "docx", to: "docx" }, "VALIDATION_ERROR"],
    [{ from: "odt", to: "docx" }, "ok"],
    [{ from: "md", to: "docx" }, "ok"],
    [{ from: "html", to: "pdf" }, "ok"],
    [{ from: "md", to: "docx", pdfa: "2b" }, "VALIDATION_ERROR"],
    [{ from: "xlsx", to: "pdf" }, "ok"],
    [{ from: "csv", to: "pdf", pdfa: "2b" }, "ok"],
    [{ from: "pptx", to: "docx" }, "VALIDATION_ERROR"],
    [{ from: "ods", to: "docx" }, "VALIDATION_ERROR"],
  ];
  const limits = { maxConvertPages: 1000 };
  it.each(rows)("%j -> %s", (query, expected) => {
    expect(codeOf(() => conversionOptions(query as never, limits))).toBe(expected);
  });

  it("turns pdfa=2b into a flag, and gives spreadsheets and presentations the page limit", () => {
    expect(conversionOptions({ from: "docx", to: "pdf", pdfa: "2b" }, limits)).toEqual({ from: "docx", to: "pdf", pdfa: true });
    expect(conversionOptions({ from: "xls", to: "pdf" }, limits)).toEqual({ from: "xls", to: "pdf", maxPages: 1000 });
    expect(conversionOptions({ from: "odp", to: "pdf" }, limits)).toEqual({ from: "odp", to: "pdf", maxPages: 1000 });
  });
});

describe("intake", () => {
  const rows: Array<[string, SourceFormat, Buffer, string]> = [
    ["a real DOCX", "docx", fixtureDocx(), "ok"],
    ["an empty file", "docx", Buffer.alloc(0), "VALIDATION_ERROR"],
    ["random bytes as docx", "docx", Buffer.from("not a document at all"), "INVALID_DOCUMENT"],
    ["a zip without word/document.xml", "docx", zipWith("hello.txt"), "INVALID_DOCUMENT"],
    ["a PDF as docx", "docx", Buffer.from("%PDF-1.7\n%%EOF"), "INVALID_DOCUMENT"],
    ["an encrypted DOCX (OLE EncryptedPackage)", "docx", oleFile(["EncryptionInfo", "EncryptedPackage"]), "ENCRYPTED_DOCUMENT"],
    ["an oversize file", "docx", Buffer.alloc(limits.maxDocumentBytes + 1, 1), "PAYLOAD_TOO_LARGE"],
    ["a Word 97 file", "doc", wordFile(false), "ok"],
    ["a password-protected Word 97 file", "doc", wordFile(true), "ENCRYPTED_DOCUMENT"],
    ["an encrypted OOXML package as doc", "doc", oleFile(["EncryptionInfo", "EncryptedPackage"]), "ENCRYPTED_DOCUMENT"],
    ["an OLE file without WordDocument", "doc", oleFile(["Workbook"]), "INVALID_DOCUMENT"],
    ["a DOCX as doc", "doc", fixtureDocx(), "INVALID_DOCUMENT"],
    ["an ODT", "odt", odt(), "ok"],
    ["an encrypted ODT", "odt", odt('<manifest:encryption-data manifest:checksum-type="SHA1"/>'), "ENCRYPTED_DOCUMENT"],
    ["a DOCX as odt", "odt", fixtureDocx(), "INVALID_DOCUMENT"],
    ["RTF", "rtf", Buffer.from("{\\rtf1\\ansi Hello}"), "ok"],
    ["text as rtf", "rtf", Buffer.from("Hello"), "INVALID_DOCUMENT"],
    ["Markdown", "md", Buffer.from("# Title\n\nText ü"), "ok"],
    ["a DOCX as md", "md", fixtureDocx(), "INVALID_DOCUMENT"],
    ["Latin-1 bytes as md", "md", Buffer.from([0x48, 0xe9, 0x6c]), "INVALID_DOCUMENT"],
    ["HTML", "html", Buffer.from("<p>Hello</p>"), "ok"],
    ["binary as html", "html", Buffer.from([0x3c, 0x00, 0x01]), "INVALID_DOCUMENT"],
    ["a plain Word 97 file as docx", "docx", wordFile(false), "INVALID_DOCUMENT"],
    ["a password-protected Word 97 file as docx", "docx", wordFile(true), "ENCRYPTED_DOCUMENT"],
    ["a DOCX with encrypted entries", "docx", buildZip([{ name: "word/document.xml", data: "<w:document/>", encrypted: true }]), "ENCRYPTED_DOCUMENT"],
    ["a DOCX whose entry inflates beyond its declared size", "docx", lyingDocx(), "PAYLOAD_TOO_LARGE"],
    ["a DOCX whose entries really unpack beyond the limit", "docx", bigDocx(11), "PAYLOAD_TOO_LARGE"],
    ["a DOCX with an unsupported compression method", "docx", buildZip([{ name: "word/document.xml", data: "x", method: 14 }]), "INVALID_DOCUMENT"],
    ["an ODT whose first local header has extra-field length 0xffff", "odt", craftedOdt(), "INVALID_DOCUMENT"],
    ["an ODT whose content inflates beyond its declared size", "odt", lyingOdt(), "PAYLOAD_TOO_LARGE"],
    ["an XLSX", "xlsx", zipWith("xl/workbook.xml"), "ok"],
    ["a DOCX as xlsx", "xlsx", fixtureDocx(), "INVALID_DOCUMENT"],
    ["an encrypted XLSX (OLE EncryptedPackage)", "xlsx", oleFile(["EncryptionInfo", "EncryptedPackage"]), "ENCRYPTED_DOCUMENT"],
    ["a PPTX", "pptx", zipWith("ppt/presentation.xml"), "ok"],
    ["an XLSX as pptx", "pptx", zipWith("xl/workbook.xml"), "INVALID_DOCUMENT"],
    ["an Excel 97 file", "xls", oleFile(["Workbook"]), "ok"],
    ["an Excel 5 file", "xls", oleFile(["Book"]), "ok"],
    ["a Word 97 file as xls", "xls", wordFile(false), "INVALID_DOCUMENT"],
    ["an encrypted OOXML package as xls", "xls", oleFile(["EncryptionInfo", "EncryptedPackage"]), "ENCRYPTED_DOCUMENT"],
    ["a PowerPoint 97 file", "ppt", oleFile(["PowerPoint Document"]), "ok"],
    ["an Excel 97 file as ppt", "ppt", oleFile(["Workbook"]), "INVALID_DOCUMENT"],
    ["an ODS", "ods", odt("", "application/vnd.oasis.opendocument.spreadsheet"), "ok"],
    ["an ODT as ods", "ods", odt(), "INVALID_DOCUMENT"],
    ["an encrypted ODP", "odp", odt("<manifest:encryption-data/>", "application/vnd.oasis.opendocument.presentation"), "ENCRYPTED_DOCUMENT"],
    ["CSV", "csv", Buffer.from("a,b\n1,2\n"), "ok"],
    ["an XLSX as csv", "csv", zipWith("xl/workbook.xml"), "INVALID_DOCUMENT"],
  ];
  it.each(rows)("%s (from=%s)", async (_name, from, bytes, expected) => {
    expect(await asyncCodeOf(() => intake(bytes, from, limits))).toBe(expected);
  });

  it("returns the decoded text of Markdown and HTML, so the converter does not decode it again", async () => {
    expect((await intake(Buffer.from("# Title ü"), "md", limits)).text).toBe("# Title ü");
    expect((await intake(Buffer.from("<p>Hi</p>"), "html", limits)).text).toBe("<p>Hi</p>");
    expect((await intake(fixtureDocx(), "docx", limits)).text).toBeUndefined();
  });

  it("reads the fEncrypted flag of a Word 97 file", async () => {
    expect((await CompoundFile.open(wordFile(true), ".doc file")).wordEncrypted()).toBe(true);
    expect((await CompoundFile.open(wordFile(false), ".doc file")).wordEncrypted()).toBe(false);
  });
});

describe("signDocument with DOCX input runs the same check before converting", () => {
  const converted: string[] = [];
  const deps: SignDependencies = {
    fetcher: { fetch: () => Promise.reject(new Error("no fetch expected")) },
    converter: {
      convert: async (document) => {
        converted.push(document.format);
        throw new Error("the converter must not be reached");
      },
    },
    identities: { load: () => Promise.reject(new Error("no identity expected")) },
    fonts: () => {
      throw new Error("no fonts expected");
    },
    limits: { ...limits, maxAuditEvents: 100, maxMetadataBytes: 1024 },
  };
  const sign = (docx: Buffer) =>
    asyncCodeOf(() =>
      signDocument(
        {
          document: { base64: docx.toString("base64") },
          signer: { email: "a@example.com", name: "A" },
          auditTrail: [{ type: "submit", timestamp: "2024-01-01T00:00:00Z" }],
        },
        deps,
      ),
    );

  it.each<[string, () => Buffer, string]>([
    ["encrypted entries", () => buildZip([{ name: "word/document.xml", data: "<w:document/>", encrypted: true }]), "ENCRYPTED_DOCUMENT"],
    ["an entry that inflates beyond its declared size", lyingDocx, "PAYLOAD_TOO_LARGE"],
    ["entries that really unpack beyond the limit", () => bigDocx(11), "PAYLOAD_TOO_LARGE"],
  ])("refuses a DOCX with %s before LibreOffice runs", async (_name, docx, code) => {
    converted.length = 0;
    expect(await sign(docx())).toBe(code);
    expect(converted).toEqual([]);
  });
});

import PizZip from "pizzip";
import { describe, expect, it } from "vitest";
import { checkConversionInput, conversionOptions } from "#domain/conversion.ts";
import type { SourceFormat } from "#domain/converter.ts";
import { isSignetError } from "#domain/errors.ts";
import { wordDocumentEncrypted } from "#domain/ole.ts";
import { fixtureDocx, oleFile, wordFile } from "#test/helpers/convert-fixtures.ts";

const limits = { maxDocumentBytes: 1024 * 1024, maxEntries: 100, maxUncompressedBytes: 10 * 1024 * 1024 };

function codeOf(run: () => unknown): string {
  try {
    run();
    return "ok";
  } catch (error) {
    return isSignetError(error) ? error.code : `unexpected ${String(error)}`;
  }
}

function odt(manifestExtra = ""): Buffer {
  const zip = new PizZip();
  zip.file("mimetype", "application/vnd.oasis.opendocument.text", { compression: "STORE" });
  zip.file("content.xml", "<office:document-content/>");
  zip.file("META-INF/manifest.xml", `<manifest:manifest><manifest:file-entry manifest:full-path="content.xml">${manifestExtra}</manifest:file-entry></manifest:manifest>`);
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
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
  ];
  it.each(rows)("%j -> %s", (query, expected) => {
    expect(codeOf(() => conversionOptions(query as never))).toBe(expected);
  });

  it("turns pdfa=2b into a flag", () => {
    expect(conversionOptions({ from: "docx", to: "pdf", pdfa: "2b" })).toEqual({ from: "docx", to: "pdf", pdfa: true });
  });
});

describe("checkConversionInput", () => {
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
  ];
  it.each(rows)("%s (from=%s) -> %s", (_name, from, bytes, expected) => {
    expect(codeOf(() => checkConversionInput(bytes, from, limits))).toBe(expected);
  });

  it("reads the fEncrypted flag of a Word 97 file", () => {
    expect(wordDocumentEncrypted(wordFile(true))).toBe(true);
    expect(wordDocumentEncrypted(wordFile(false))).toBe(false);
  });
});

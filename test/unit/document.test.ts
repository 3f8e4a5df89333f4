import { describe, expect, it } from "vitest";
import { decodeBase64, detectDocumentType, inspectDocument, resolveDocument, type DocumentLimits } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { checkZipInflation, readZipDirectory, readZipEntry } from "#domain/shared/zip-container.ts";
import { oleFile, wordFile } from "#test/helpers/convert-fixtures.ts";
import { buildZip, minimalDocx, type ZipInput } from "#test/helpers/zip-builder.ts";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n");
const limits: DocumentLimits = { maxDocumentBytes: 1024 * 1024, maxEntries: 100, maxUncompressedBytes: 10 * 1024 * 1024 };
const noFetch: Fetcher = {
  fetch: () => {
    throw new Error("no fetch expected");
  },
};

async function rejection(promise: Promise<unknown>): Promise<SignetError> {
  const error = await promise.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignetError);
  return error as SignetError;
}

describe("decodeBase64", () => {
  it.each([
    ["plain", PDF.toString("base64")],
    ["data URI", `data:application/pdf;base64,${PDF.toString("base64")}`],
    ["data URI with parameters", `data:application/pdf;name=x.pdf;base64,${PDF.toString("base64")}`],
    ["with line breaks", PDF.toString("base64").replace(/(.{8})/g, "$1\n")],
    ["base64url", PDF.toString("base64url")],
  ])("accepts %s", (_name, value) => {
    expect(decodeBase64(value, "document.base64").bytes.equals(PDF)).toBe(true);
  });

  it.each([
    ["characters outside the alphabet", "JVBERi0*!@#"],
    ["an impossible length", "JVBER"],
    ["a data URI without ;base64", "data:application/pdf,JVBERi0"],
    ["an empty payload", "data:application/pdf;base64,"],
    ["padding in the middle", "JV==BERi"],
  ])("rejects %s", (_name, value) => {
    expect(() => decodeBase64(value, "document.base64")).toThrowError(/document.base64 (is not valid base64|is a data URI)/);
  });

  // The single-pass validator: large inputs, window edges, both alphabets, padding.
  const big = Buffer.from(Array.from({ length: 200_003 }, (_, i) => (i * 7919 + (i >> 8)) & 0xff));
  it.each([
    ["a large document (many 48 KB windows, with padding)", big.toString("base64")],
    ["a large document without padding", big.toString("base64").replace(/=+$/, "")],
    ["a large base64url document", big.toString("base64url")],
    ["a large base64url document with padding", big.toString("base64url") + "="],
    ["a large document wrapped at 76 columns (MIME)", big.toString("base64").replace(/(.{76})/g, "$1\r\n")],
  ])("decodes %s", (_name, value) => {
    expect(decodeBase64(value, "document.base64").bytes.equals(big)).toBe(true);
  });

  it.each([
    ["both alphabets mixed", "ab+_"],
    ["three padding characters", "QQ==="],
    ["data after padding", "QQ==QQ=="],
    ["a non-ASCII character", "QQé="],
    ["an invalid character deep inside a large document", big.toString("base64").slice(0, 150_000) + "*" + big.toString("base64").slice(150_001)],
  ])("rejects %s", (_name, value) => {
    expect(() => decodeBase64(value, "document.base64")).toThrowError(/not valid base64/);
  });

  it("accepts non-canonical trailing bits as Node decodes them", () => {
    expect(decodeBase64("QR==", "x").bytes.equals(Buffer.from("A"))).toBe(true);
  });

  it("returns the data URI's media type", () => {
    expect(decodeBase64(`data:image/PNG;base64,${PDF.toString("base64")}`, "value").mediaType).toBe("image/png");
  });
});

describe("detectDocumentType", () => {
  it.each([
    ["pdf", PDF],
    ["docx", minimalDocx()],
    ["zip", buildZip([{ name: "mimetype", data: "application/vnd.oasis.opendocument.text" }])],
    ["ole", Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0])],
    ["unknown", Buffer.from("hello world, not a document")],
  ])("recognises %s", (type, bytes) => {
    expect(detectDocumentType(bytes, limits)).toBe(type);
  });

  it("checks the zip signature at offset 0 before looking for %PDF- in the first 1 KB", () => {
    const docx = buildZip([
      { name: "notes.txt", data: "see the attached %PDF-1.7 sample", stored: true },
      { name: "word/document.xml", data: "<w:document/>" },
    ]);
    expect(docx.subarray(0, 1024).toString("latin1")).toContain("%PDF-");
    expect(detectDocumentType(docx, limits)).toBe("docx");
  });

  it("still accepts a PDF with leading junk", () => {
    expect(detectDocumentType(Buffer.concat([Buffer.from("junk\n"), PDF]), limits)).toBe("pdf");
  });

  it("returns the zip directory it read, so callers need not read it again", () => {
    const inspected = inspectDocument(minimalDocx(), limits);
    expect(inspected.type).toBe("docx");
    expect(inspected.zip?.entries.map((entry) => entry.name)).toEqual(["[Content_Types].xml", "word/document.xml"]);
  });
});

describe("readZipEntry", () => {
  const entryOf = (files: ZipInput[], name = files[0]!.name) => {
    const zip = buildZip(files);
    return { zip, entry: readZipDirectory(zip, limits).find((e) => e.name === name)! };
  };
  const codeOf = (run: () => unknown) => {
    try {
      run();
      return "ok";
    } catch (error) {
      return error instanceof SignetError ? error.code : `unexpected ${String(error)}`;
    }
  };

  it("reads deflated and stored entries", () => {
    const deflated = entryOf([{ name: "a.xml", data: "hello hello hello" }]);
    expect(readZipEntry(deflated.zip, deflated.entry, 1024).toString()).toBe("hello hello hello");
    const stored = entryOf([{ name: "mimetype", data: "application/vnd.oasis.opendocument.text", stored: true }]);
    expect(readZipEntry(stored.zip, stored.entry, 1024).toString()).toBe("application/vnd.oasis.opendocument.text");
  });

  it.each<[string, ZipInput, string]>([
    ["an extra-field length past the end of the file", { name: "a.xml", data: "x", localExtraLength: 0xffff }, "INVALID_DOCUMENT"],
    ["an unsupported compression method", { name: "a.xml", data: "x", method: 12 }, "INVALID_DOCUMENT"],
    ["an entry that inflates beyond its declared size", { name: "a.xml", data: "x".repeat(5000), declaredSize: 100 }, "PAYLOAD_TOO_LARGE"],
    ["an entry declaring more than maxBytes", { name: "a.xml", data: "x".repeat(5000) }, "PAYLOAD_TOO_LARGE"],
    ["an entry smaller than it declares", { name: "a.xml", data: "x", declaredSize: 100 }, "INVALID_DOCUMENT"],
    ["an encrypted entry", { name: "a.xml", data: "x", encrypted: true }, "ENCRYPTED_DOCUMENT"],
  ])("refuses %s with a SignetError", (_name, file, code) => {
    const { zip, entry } = entryOf([file]);
    expect(codeOf(() => readZipEntry(zip, entry, 1000))).toBe(code);
  });

  it("refuses a local header offset or compressed range outside the buffer", () => {
    const { zip, entry } = entryOf([{ name: "a.xml", data: "hello" }]);
    expect(codeOf(() => readZipEntry(zip, { ...entry, localHeaderOffset: zip.length - 10 }, 1000))).toBe("INVALID_DOCUMENT");
    expect(codeOf(() => readZipEntry(zip, { ...entry, localHeaderOffset: 4 }, 1000))).toBe("INVALID_DOCUMENT");
    expect(codeOf(() => readZipEntry(zip, { ...entry, compressedSize: zip.length }, 1000))).toBe("INVALID_DOCUMENT");
  });
});

describe("checkZipInflation", () => {
  const check = async (files: ZipInput[], max = limits.maxUncompressedBytes) => {
    const zip = buildZip(files);
    const entries = readZipDirectory(zip, limits);
    return checkZipInflation(zip, entries, { ...limits, maxUncompressedBytes: max }).then(
      () => "ok",
      (error: unknown) => (error instanceof SignetError ? error.code : `unexpected ${String(error)}`),
    );
  };

  it("passes an honest package", async () => {
    expect(
      await check([
        { name: "a.xml", data: "a".repeat(100_000) },
        { name: "b.bin", data: "b", stored: true },
      ]),
    ).toBe("ok");
  });

  it("refuses an entry whose declared size lies (a 2 MB entry declared as 1 KB)", async () => {
    expect(await check([{ name: "word/document.xml", data: Buffer.alloc(2 * 1024 * 1024), declaredSize: 1024 }])).toBe("PAYLOAD_TOO_LARGE");
  });

  it("counts the actual total against maxUncompressedBytes", async () => {
    const files = [0, 1, 2].map((i) => ({ name: `part${i}.xml`, data: Buffer.alloc(400_000) }));
    expect(await check(files, 1_000_000)).toBe("PAYLOAD_TOO_LARGE");
    expect(await check(files, 1_300_000)).toBe("ok");
  });

  it("refuses corrupt deflate data and out-of-bounds headers", async () => {
    expect(await check([{ name: "a.xml", data: "x", localExtraLength: 0xffff }])).toBe("INVALID_DOCUMENT");
    const zip = buildZip([{ name: "a.xml", data: "hello world hello world" }]);
    const entries = readZipDirectory(zip, limits);
    zip.fill(0xff, 30 + 5, 30 + 5 + entries[0]!.compressedSize);
    await expect(checkZipInflation(zip, entries, limits)).rejects.toMatchObject({ code: "INVALID_DOCUMENT" });
  });
});

describe("zip guard", () => {
  it("lists entries from the central directory", () => {
    expect(readZipDirectory(minimalDocx(), limits).map((entry) => entry.name)).toEqual(["[Content_Types].xml", "word/document.xml"]);
  });

  it("refuses more entries than allowed", () => {
    const many = buildZip(Array.from({ length: 101 }, (_, i) => ({ name: `f${i}.xml`, data: "x" })));
    expect(() => readZipDirectory(many, limits)).toThrowError(expect.objectContaining({ code: "PAYLOAD_TOO_LARGE" }));
  });

  it("refuses a declared unpacked size over the cap (zip bomb)", () => {
    const bomb = buildZip([{ name: "word/document.xml", data: "x", declaredSize: 11 * 1024 * 1024 }]);
    expect(() => readZipDirectory(bomb, limits)).toThrowError(/zip bomb/);
  });

  it("refuses a truncated zip", () => {
    const cut = minimalDocx().subarray(0, 60);
    expect(() => readZipDirectory(cut, limits)).toThrowError(expect.objectContaining({ code: "INVALID_DOCUMENT" }));
  });

  it("zip bombs sent as documents are refused before anything is inflated", async () => {
    const bomb = buildZip([{ name: "word/document.xml", data: "x", declaredSize: 11 * 1024 * 1024 }]);
    const error = await rejection(resolveDocument({ base64: bomb.toString("base64") }, ["docx"], { fetcher: noFetch, limits }));
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("resolveDocument", () => {
  it("decodes base64 and hashes the bytes as received", async () => {
    const doc = await resolveDocument({ base64: PDF.toString("base64") }, ["pdf", "docx"], { fetcher: noFetch, limits });
    expect(doc.type).toBe("pdf");
    expect(doc.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("fetches URLs through the fetcher with the document limit", async () => {
    const calls: Array<{ url: string; maxBytes: number }> = [];
    const fetcher: Fetcher = {
      fetch: async (url, options) => {
        calls.push({ url, maxBytes: options.maxBytes });
        return { bytes: minimalDocx(), fileName: "contract.docx" };
      },
    };
    const doc = await resolveDocument({ url: "https://example.com/contract.docx" }, ["docx"], { fetcher, limits });
    expect(doc).toMatchObject({ type: "docx", fileName: "contract.docx" });
    expect(calls).toEqual([{ url: "https://example.com/contract.docx", maxBytes: limits.maxDocumentBytes }]);
  });

  const cases: Array<[string, { base64?: string; url?: string }, Array<"pdf" | "docx">, string, RegExp]> = [
    ["neither member", {}, ["pdf"], "VALIDATION_ERROR", /exactly one/],
    ["invalid base64", { base64: "%%%%" }, ["pdf"], "VALIDATION_ERROR", /not valid base64/],
    ["random bytes", { base64: Buffer.from("just some text").toString("base64") }, ["pdf", "docx"], "INVALID_DOCUMENT", /neither a PDF nor a DOCX/],
    [
      "a zip that is not a DOCX",
      { base64: buildZip([{ name: "a.txt", data: "a" }]).toString("base64") },
      ["docx"],
      "INVALID_DOCUMENT",
      /without word\/document.xml/,
    ],
    ["a PDF where DOCX is required", { base64: PDF.toString("base64") }, ["docx"], "INVALID_DOCUMENT", /takes DOCX/],
    ["an encrypted office file", { base64: oleFile(["EncryptionInfo", "EncryptedPackage"]).toString("base64") }, ["docx"], "ENCRYPTED_DOCUMENT", /password/],
    ["a password-protected Word 97 file", { base64: wordFile(true).toString("base64") }, ["docx"], "ENCRYPTED_DOCUMENT", /password/],
    [
      "a plain Word 97 .doc",
      { base64: wordFile(false).toString("base64") },
      ["pdf", "docx"],
      "INVALID_DOCUMENT",
      /Word 97-2003 \.doc.*convert it to DOCX first/,
    ],
    [
      "a bare OLE header (no readable directory)",
      { base64: Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).toString("base64") },
      ["docx"],
      "INVALID_DOCUMENT",
      /OLE compound file/,
    ],
    ["an empty document", { base64: "" }, ["pdf"], "VALIDATION_ERROR", /not valid base64/],
    ["an oversize document", { base64: Buffer.alloc(limits.maxDocumentBytes + 10).toString("base64") }, ["pdf"], "PAYLOAD_TOO_LARGE", /1 MB limit/],
  ];
  it("names the conversion a .doc needs without HTTP words (the HTTP layer adds the endpoint)", async () => {
    const error = await rejection(resolveDocument({ base64: wordFile(false).toString("base64") }, ["pdf"], { fetcher: noFetch, limits }));
    expect(error.next).toBe("convert-doc");
    expect(error.message).toMatch(/convert it to PDF first/);
    expect(error.message).not.toMatch(/\/v1\/|POST|GET/);
  });

  it.each(cases)("rejects %s", async (_name, input, accept, code, message) => {
    const error = await rejection(resolveDocument(input, accept, { fetcher: noFetch, limits }));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });
});

// POST /v1/convert through the handler (the pipeline API Gateway would invoke) with real LibreOffice.
import PizZip from "pizzip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureDocx, fixtureText, multipartBody, oleFile, passwordProtectedFixtures } from "#test/helpers/convert-fixtures.ts";
import { loadConvertHandler, type ConvertHandler } from "#test/helpers/convert-runtime.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";

let convert: ConvertHandler;

beforeAll(async () => {
  convert = await loadConvertHandler({ SIGNET_CONVERSION_CONCURRENCY: "1", SIGNET_MAX_DOCUMENT_BYTES: String(2 * 1024 * 1024) });
});
afterAll(async () => {
  await convert?.close();
});

const file = (data: Buffer | string, fileName = "contract.docx") => multipartBody([{ name: "file", fileName, data }]);

async function call(query: Record<string, string>, request: { body: Buffer; contentType?: string }) {
  const response = await convert.invoke(query, request.body, request.contentType);
  const bytes = response.isBase64Encoded ? Buffer.from(response.body, "base64") : Buffer.from(response.body);
  const json = response.headers?.["Content-Type"] === "application/json; charset=utf-8" ? (JSON.parse(bytes.toString()) as Record<string, unknown>) : {};
  return { status: response.statusCode, headers: response.headers ?? {}, bytes, json };
}

function zipWithout(): Buffer {
  const zip = new PizZip();
  zip.file("hello.txt", "hi");
  return zip.generate({ type: "nodebuffer" });
}

describe("POST /v1/convert, bad input", () => {
  const docx = fixtureDocx();
  const rows: Array<[string, Record<string, string>, { body: Buffer; contentType?: string }, number, string]> = [
    ["no from", {}, file(docx), 400, "VALIDATION_ERROR"],
    ["unknown from", { from: "pages" }, file(docx), 400, "VALIDATION_ERROR"],
    ["unknown query parameter", { from: "docx", quality: "high" }, file(docx), 400, "VALIDATION_ERROR"],
    ["docx to docx", { from: "docx", to: "docx" }, file(docx), 400, "VALIDATION_ERROR"],
    ["pdfa with to=docx", { from: "md", to: "docx", pdfa: "2b" }, file("# x", "a.md"), 400, "VALIDATION_ERROR"],
    ["JSON instead of multipart", { from: "docx" }, { body: Buffer.from("{}"), contentType: "application/json" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["no content type", { from: "docx" }, { body: docx }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["missing file part", { from: "docx" }, multipartBody([]), 400, "VALIDATION_ERROR"],
    ["wrong field name", { from: "docx" }, multipartBody([{ name: "document", fileName: "a.docx", data: docx }]), 400, "VALIDATION_ERROR"],
    [
      "two files",
      { from: "docx" },
      multipartBody([
        { name: "file", fileName: "a.docx", data: docx },
        { name: "file", fileName: "b.docx", data: docx },
      ]),
      400,
      "VALIDATION_ERROR",
    ],
    ["empty file", { from: "docx" }, file(Buffer.alloc(0)), 400, "VALIDATION_ERROR"],
    ["not a zip", { from: "docx" }, file("plain text pretending"), 422, "INVALID_DOCUMENT"],
    ["zip without word/document.xml", { from: "docx" }, file(zipWithout()), 422, "INVALID_DOCUMENT"],
    ["password-protected DOCX", { from: "docx" }, file(oleFile(["EncryptionInfo", "EncryptedPackage"])), 422, "ENCRYPTED_DOCUMENT"],
    ["over the size cap", { from: "docx" }, file(Buffer.alloc(2 * 1024 * 1024 + 1, 1)), 413, "PAYLOAD_TOO_LARGE"],
    ["not RTF", { from: "rtf" }, file("hello", "a.rtf"), 422, "INVALID_DOCUMENT"],
  ];
  it.each(rows)("%s -> %i %s", async (_name, query, request, status, code) => {
    const response = await call(query, request);
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject({ code, requestId: expect.any(String), message: expect.any(String) });
  });
});

describe("POST /v1/convert, files LibreOffice saved with a password", () => {
  // The synthetic OLE case above stands for a password-protected DOCX: LibreOffice 7.4 cannot
  // write one headless, so the real encrypted files here are ODT and Word 97.
  let secret: Awaited<ReturnType<typeof passwordProtectedFixtures>>;
  // passwordProtectedFixtures allows its soffice runs 60 s, then 90 s and one retry of 90 s.
  beforeAll(async () => {
    secret = await passwordProtectedFixtures();
  }, 300_000);

  it("the fixtures really are encrypted", () => {
    const manifest = new PizZip(secret.odt).file("META-INF/manifest.xml")!.asText();
    expect(manifest).toMatch(/<manifest:encryption-data/);
    expect(secret.doc.subarray(0, 8)).toEqual(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
  });

  it.each([
    ["odt", "secret.odt"],
    ["doc", "secret.doc"],
  ] as const)("a password-protected %s -> 422 ENCRYPTED_DOCUMENT", async (from, name) => {
    const response = await call({ from }, file(secret[from], name));
    expect(response.status).toBe(422);
    expect(response.json).toMatchObject({ code: "ENCRYPTED_DOCUMENT", requestId: expect.any(String) });
  });
});

describe("POST /v1/convert, success", () => {
  it("answers the PDF of a DOCX with Content-Type and the uploaded name", async () => {
    const response = await call({ from: "docx" }, file(fixtureDocx(), "Contract 2026.docx"));
    expect(response.status).toBe(200);
    expect(response.headers["Content-Type"]).toBe("application/pdf");
    expect(response.headers["Content-Disposition"]).toContain('filename="Contract 2026.pdf"');
    expect(await pdfText(response.bytes)).toContain(fixtureText.title);
  });

  it("answers a DOCX for Markdown with to=docx", async () => {
    const response = await call({ from: "md", to: "docx" }, file("# Notes\n\n- one\n- two\n", "notes.md"));
    expect(response.status).toBe(200);
    expect(response.headers["Content-Type"]).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(response.headers["Content-Disposition"]).toContain('filename="notes.docx"');
    expect(new PizZip(response.bytes).file("word/document.xml")!.asText()).toContain("Notes");
  });
});

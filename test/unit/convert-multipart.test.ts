import { describe, expect, it } from "vitest";
import { isSignetError } from "#domain/shared/errors.ts";
import { parseMultipartFile } from "#http/multipart.ts";
import { multipartBody } from "#test/helpers/convert-fixtures.ts";

const options = { field: "file", maxBytes: 1024 };

async function outcome(body: Buffer, contentType: string | undefined): Promise<string> {
  try {
    const file = await parseMultipartFile(body, contentType, options);
    return `ok ${file.fileName} ${file.bytes.length}`;
  } catch (error) {
    return isSignetError(error) ? error.code : `unexpected ${String(error)}`;
  }
}

describe("parseMultipartFile", () => {
  const one = multipartBody([{ name: "file", fileName: "contract.docx", data: Buffer.alloc(100, 7) }]);
  const rows: Array<[string, { body: Buffer; contentType: string | undefined }, string]> = [
    ["one file part", one, "ok contract.docx 100"],
    ["a path in the file name", multipartBody([{ name: "file", fileName: "C:\\x/../dir/report.docx", data: "abc" }]), "ok report.docx 3"],
    ["no content type", { body: one.body, contentType: undefined }, "UNSUPPORTED_MEDIA_TYPE"],
    ["JSON content type", { body: one.body, contentType: "application/json" }, "UNSUPPORTED_MEDIA_TYPE"],
    ["multipart without boundary", { body: one.body, contentType: "multipart/form-data" }, "VALIDATION_ERROR"],
    ["wrong field name", multipartBody([{ name: "document", fileName: "a.docx", data: "abc" }]), "VALIDATION_ERROR"],
    [
      "two files",
      multipartBody([
        { name: "file", fileName: "a.docx", data: "a" },
        { name: "file", fileName: "b.docx", data: "b" },
      ]),
      "VALIDATION_ERROR",
    ],
    [
      "a file and a text field",
      multipartBody([
        { name: "file", fileName: "a.docx", data: "a" },
        { name: "note", data: "hi" },
      ]),
      "VALIDATION_ERROR",
    ],
    ["the file as a text field", multipartBody([{ name: "file", data: "abc" }]), "VALIDATION_ERROR"],
    ["no parts", multipartBody([]), "VALIDATION_ERROR"],
    ["a file over the limit", multipartBody([{ name: "file", fileName: "big.docx", data: Buffer.alloc(2048) }]), "PAYLOAD_TOO_LARGE"],
    ["a truncated body", { body: one.body.subarray(0, 80), contentType: one.contentType }, "VALIDATION_ERROR"],
  ];
  it.each(rows)("%s -> %s", async (_name, request, expected) => {
    expect(await outcome(request.body, request.contentType)).toBe(expected);
  });

  it("keeps binary bytes intact", async () => {
    const data = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const { body, contentType } = multipartBody([{ name: "file", fileName: "bin.docx", data }]);
    const file = await parseMultipartFile(body, contentType, options);
    expect(file.bytes.equals(data)).toBe(true);
  });
});

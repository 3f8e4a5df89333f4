import { basename } from "node:path";
import busboy from "busboy";
import { SignetError, type ErrorDetail } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** UploadedFile is the one file part of a multipart request. */
export interface UploadedFile {
  /** The client's file name without any folder part ("" when none was given). */
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** MultipartOptions name the expected file part and cap its size. */
export interface MultipartOptions {
  field: string;
  maxBytes: number;
}

function badRequest(message: string, details: ErrorDetail[]): SignetError {
  return new SignetError("VALIDATION_ERROR", message, { details });
}

/** malformed is the 400 for a body busboy cannot read, with a hint for the usual cause (a truncated upload). */
function malformed(error: Error, field: string): SignetError {
  if (/unexpected end of form/i.test(error.message)) {
    return badRequest(
      `The multipart body ended before its closing boundary; send the whole body (let your HTTP client build it, e.g. curl -F ${field}=@document.docx).`,
      [{ field: "body", issue: "the multipart body ended before its closing boundary" }],
    );
  }
  return badRequest(`The multipart body is malformed (${error.message}); let your HTTP client build it, e.g. curl -F ${field}=@document.docx.`, [
    { field: "body", issue: "malformed multipart" },
  ]);
}

/** onePart picks the one file part named `field` from what the body held, or explains what was wrong with it. */
function onePart(files: Array<UploadedFile & { field: string }>, strayFields: string[], field: string): UploadedFile {
  const wanted = files.filter((file) => file.field === field);
  const others = [...files.filter((file) => file.field !== field).map((file) => file.field), ...strayFields];
  if (wanted.length === 0) {
    const hint = strayFields.includes(field)
      ? `"${field}" arrived as a text field; send it as a file (curl -F ${field}=@document.docx).`
      : `attach the document as a file part named "${field}"${others.length > 0 ? ` (got ${others.map((name) => `"${name}"`).join(", ")})` : ""}.`;
    throw badRequest(`No file was uploaded: ${hint}`, [{ field, issue: "missing" }]);
  }
  if (wanted.length > 1 || others.length > 0) {
    throw badRequest(`Send exactly one part, the file named "${field}"; the request had ${files.length + strayFields.length}.`, [
      ...(wanted.length > 1 ? [{ field, issue: `${wanted.length} files; send one` }] : []),
      ...others.map((name) => ({ field: name, issue: "unexpected part" })),
    ]);
  }
  const { field: _field, ...file } = wanted[0]!;
  return file;
}

/** readParts runs busboy over the body and settles once, with the file part or the first error. */
function readParts(parser: busboy.Busboy, body: Buffer, options: MultipartOptions): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const files: Array<UploadedFile & { field: string }> = [];
    const strayFields: string[] = [];
    let tooLarge = false;
    let failed = false;
    parser.on("file", (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      // busboy also emits the parser's error on the open file stream; without a listener there it
      // would be an uncaught exception that ends the process. The parser's own error listener
      // below answers the request.
      stream.on("error", () => undefined);
      stream.on("limit", () => {
        tooLarge = true;
      });
      stream.on("end", () => {
        files.push({ field: name, fileName: basename(info.filename ?? "").trim(), contentType: info.mimeType, bytes: Buffer.concat(chunks) });
      });
    });
    parser.on("field", (name) => strayFields.push(name));
    parser.on("error", (error: Error) => {
      if (failed) return;
      failed = true;
      reject(malformed(error, options.field));
    });
    parser.on("close", () => {
      if (failed) return;
      if (tooLarge) reject(new SignetError("PAYLOAD_TOO_LARGE", `The file is larger than the ${formatBytes(options.maxBytes)} limit.`));
      else {
        try {
          resolve(onePart(files, strayFields, options.field));
        } catch (error) {
          reject(error);
        }
      }
    });
    parser.end(body);
  });
}

/**
 * parseMultipartFile reads a multipart/form-data body (already base64-decoded by the pipeline)
 * that must hold exactly one file part named `options.field`. Other content types are 415; a
 * missing, extra or misnamed part is 400; a file over maxBytes is 413.
 */
export function parseMultipartFile(body: Buffer, contentType: string | undefined, options: MultipartOptions): Promise<UploadedFile> {
  if (!contentType || (!/^multipart\/form-data\s*;/i.test(contentType.trim()) && contentType.trim().toLowerCase() !== "multipart/form-data")) {
    return Promise.reject(
      new SignetError(
        "UNSUPPORTED_MEDIA_TYPE",
        `Send the document as multipart/form-data with a file part named "${options.field}" (got ${contentType ? `"${contentType}"` : "no Content-Type"}).`,
      ),
    );
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      // Browsers and curl send UTF-8 file names; busboy's default (latin1) would turn résumé into mojibake.
      defParamCharset: "utf8",
      limits: { files: 5, fields: 20, parts: 25, fileSize: options.maxBytes, headerPairs: 50 },
    });
  } catch (error) {
    return Promise.reject(
      badRequest(`The multipart body cannot be read: ${(error as Error).message}.`, [{ field: "Content-Type", issue: "missing or invalid boundary" }]),
    );
  }
  return readParts(parser, body, options);
}

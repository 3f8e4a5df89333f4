import { randomBytes } from "node:crypto";
import type { APIGatewayProxyResult } from "aws-lambda";

/** HttpResponse is what a handler returns: an API Gateway (REST, payload v1) proxy result. */
export type HttpResponse = APIGatewayProxyResult;

/**
 * JsonSafeText is a string known to need no JSON escaping (base64 we encoded ourselves). json()
 * splices it into the output as it is instead of letting JSON.stringify scan and copy megabytes.
 */
export class JsonSafeText {
  constructor(readonly text: string) {}
}

/** base64Text is bytes as base64 (with an optional safe prefix such as a data: URI header), for json(). */
export function base64Text(bytes: Uint8Array, prefix = ""): JsonSafeText {
  if (/["\\\u0000-\u001f]/.test(prefix)) throw new Error("base64Text: the prefix needs JSON escaping");
  return new JsonSafeText(prefix + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"));
}

/** stringify is JSON.stringify, with each JsonSafeText spliced in unscanned (the result is a rope, flattened once when sent). */
function stringify(body: unknown): string {
  const safe: string[] = [];
  let nonce = "";
  const skeleton = JSON.stringify(body, (_key, value: unknown) => {
    if (!(value instanceof JsonSafeText)) return value;
    // A random marker: no string of the caller's can spell it.
    nonce ||= randomBytes(12).toString("hex");
    safe.push(value.text);
    return `\u0000${nonce}:${safe.length - 1}\u0000`;
  });
  if (safe.length === 0) return skeleton;
  let out = "";
  let from = 0;
  for (const [index, text] of safe.entries()) {
    const marker = `"\\u0000${nonce}:${index}\\u0000"`;
    const at = skeleton.indexOf(marker, from);
    out += `${skeleton.slice(from, at)}"${text}"`;
    from = at + marker.length;
  }
  return out + skeleton.slice(from);
}

/** json answers with a JSON body; JsonSafeText members go in without a scan or copy. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
    body: stringify(body),
  };
}

/** binary answers with raw bytes, base64-encoded as API Gateway expects for binary media types. */
export function binary(
  statusCode: number,
  bytes: Uint8Array,
  contentType: string,
  headers: Record<string, string> = {},
): HttpResponse {
  return {
    statusCode,
    headers: { "Content-Type": contentType, ...headers },
    body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    isBase64Encoded: true,
  };
}

/** text answers with a text body of the given type (HTML, plain text). */
export function text(statusCode: number, body: string, contentType: string, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { "Content-Type": contentType, ...headers }, body };
}

/** attachmentDisposition builds a Content-Disposition header safe for any file name. */
export function attachmentDisposition(fileName: string): string {
  // RFC 6266: an ASCII fallback (accents dropped: résumé -> resume) and the exact name as RFC 5987 UTF-8.
  const ascii = fileName.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

import type { APIGatewayProxyResult } from "aws-lambda";

/** HttpResponse is what a handler returns: an API Gateway (REST, payload v1) proxy result. */
export type HttpResponse = APIGatewayProxyResult;

/** json answers with a JSON body. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(body),
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

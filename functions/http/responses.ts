import { randomBytes } from "node:crypto";
import type { APIGatewayProxyResult } from "aws-lambda";

/** HttpResponse is what a handler returns: an API Gateway (REST, payload v1) proxy result. */
export type HttpResponse = APIGatewayProxyResult;

/**
 * JsonSafeText is bytes to appear in a JSON answer as base64 (after an optional prefix such as a
 * data: URI header): text that needs no JSON escaping. json() splices it in unscanned, and the
 * local server writes it straight from the bytes (bodyPartsOf), never building the whole string.
 */
export class JsonSafeText {
  constructor(
    readonly bytes: Buffer,
    readonly prefix: string,
  ) {}

  /** The encoded length in characters (base64 with padding). */
  get length(): number {
    return this.prefix.length + Math.ceil(this.bytes.length / 3) * 4;
  }

  get text(): string {
    return this.prefix + this.bytes.toString("base64");
  }
}

/** base64Text is bytes as base64 (with an optional safe prefix such as a data: URI header), for json(). */
export function base64Text(bytes: Uint8Array, prefix = ""): JsonSafeText {
  if (/["\\\u0000-\u001f\u007f-\uffff]/.test(prefix)) throw new Error("base64Text: the prefix must be ASCII that needs no JSON escaping");
  return new JsonSafeText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), prefix);
}

/** BodyPart is a piece of a JSON answer: JSON text, or bytes written as base64 inside quotes. */
export type BodyPart = string | JsonSafeText;

const bodyParts = new WeakMap<object, BodyPart[]>();

/**
 * bodyPartsOf gives the pieces of a json() answer that holds base64Text members, so the local
 * server can write them without the whole body as one string; undefined for any other answer.
 */
export function bodyPartsOf(response: HttpResponse): BodyPart[] | undefined {
  return bodyParts.get(response);
}

const BASE64_WINDOW = 49_152; // bytes, a multiple of 3: windows encode without padding but the last

/**
 * bodyChunks yields the text of a parts answer piece by piece, base64 members in 64 KB windows: the
 * whole body never exists as one string, and each piece is small enough for the young generation,
 * which the garbage collector empties cheaply and often.
 */
export function* bodyChunks(parts: BodyPart[]): Generator<string> {
  for (const part of parts) {
    if (typeof part === "string") {
      if (part.length > 0) yield part;
      continue;
    }
    if (part.prefix) yield part.prefix;
    for (let offset = 0; offset < part.bytes.length; offset += BASE64_WINDOW) {
      yield part.bytes.toString("base64", offset, Math.min(offset + BASE64_WINDOW, part.bytes.length));
    }
  }
}

/** jsonParts is JSON.stringify's text split around each JsonSafeText (found behind a random marker). */
function jsonParts(body: unknown): BodyPart[] {
  const safe: JsonSafeText[] = [];
  let nonce = "";
  const skeleton = JSON.stringify(body, (_key, value: unknown) => {
    if (!(value instanceof JsonSafeText)) return value;
    // A random marker: no string of the caller's can spell it.
    nonce ||= randomBytes(12).toString("hex");
    safe.push(value);
    return `\u0000${nonce}:${safe.length - 1}\u0000`;
  });
  const parts: BodyPart[] = [];
  let from = 0;
  for (const [index, value] of safe.entries()) {
    const marker = `"\\u0000${nonce}:${index}\\u0000"`;
    const at = skeleton.indexOf(marker, from);
    parts.push(`${skeleton.slice(from, at)}"`, value);
    from = at + marker.length;
    parts.push('"');
  }
  parts.push(skeleton.slice(from));
  return parts;
}

/**
 * json answers with a JSON body. base64Text members go in without a scan or copy: the body string
 * is built only when something reads it (Lambda's runtime does; the local server writes the parts).
 */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  const response: HttpResponse = { statusCode, headers: { "Content-Type": "application/json; charset=utf-8", ...headers }, body: "" };
  const parts = jsonParts(body);
  if (parts.length === 1) {
    response.body = parts[0] as string;
    return response;
  }
  let text: string | undefined;
  Object.defineProperty(response, "body", {
    enumerable: true,
    configurable: true,
    get: () => (text ??= parts.map((part) => (typeof part === "string" ? part : part.text)).join("")),
    set: (value: string) => {
      text = value;
      bodyParts.delete(response);
    },
  });
  bodyParts.set(response, parts);
  return response;
}

/** binary answers with raw bytes, base64-encoded as API Gateway expects for binary media types. */
export function binary(statusCode: number, bytes: Uint8Array, contentType: string, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { "Content-Type": contentType, ...headers },
    body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    isBase64Encoded: true,
  };
}

/** A cache may keep a CRL at most a day, and never into the last day before its nextUpdate. */
const CRL_MAX_AGE_SECONDS = 86_400;

/**
 * crlCaching are the caching headers of a kept CRL: ETag, Last-Modified (its thisUpdate) and
 * `public, max-age` until a day before its nextUpdate (at most a day, so a re-issued CRL reaches
 * caches soon); `no-cache` once that point has passed.
 */
export function crlCaching(crl: { thisUpdate: Date; nextUpdate: Date; etag: string }, now: Date): Record<string, string> {
  const seconds = Math.min(CRL_MAX_AGE_SECONDS, Math.floor((crl.nextUpdate.getTime() - now.getTime()) / 1000) - CRL_MAX_AGE_SECONDS);
  return {
    "Cache-Control": seconds > 0 ? `public, max-age=${seconds}` : "no-cache",
    ETag: crl.etag,
    "Last-Modified": crl.thisUpdate.toUTCString(),
  };
}

/** text answers with a text body of the given type (HTML, plain text). */
export function text(statusCode: number, body: string, contentType: string, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { "Content-Type": contentType, ...headers }, body };
}

/** attachmentDisposition builds a Content-Disposition header safe for any file name. */
export function attachmentDisposition(fileName: string): string {
  // RFC 6266: an ASCII fallback (accents dropped: résumé -> resume) and the exact name as RFC 5987 UTF-8.
  const ascii = fileName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

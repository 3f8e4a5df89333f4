// AWS Signature Version 4 as S3 checks it, for the S3 stand-in: header authentication
// (Authorization: AWS4-HMAC-SHA256 ...) and presigned query authentication (X-Amz-Signature=...),
// recomputed from the request with the one secret the local server's clients sign with. Without
// it, any loopback process that sent some Authorization header could read every upload.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** S3Refusal is an error answer of S3: status, code and message. */
export interface S3Refusal {
  status: number;
  code: string;
  message: string;
}

/** SigV4Credentials are what requests must be signed with; the access key is checked when given. */
export interface SigV4Credentials {
  accessKeyId?: string | undefined;
  secretAccessKey: string;
}

/** SignedRequest is a request whose signature held: the payload hash it signed (hex, UNSIGNED-PAYLOAD or STREAMING-...). */
export interface SignedRequest {
  payloadHash: string;
}

const ALGORITHM = "AWS4-HMAC-SHA256";
/** S3 refuses a header-signed request whose time is more than 15 minutes off its clock. */
const MAX_SKEW_MS = 15 * 60_000;
/** A presigned URL lives at most 7 days. */
const MAX_EXPIRES_SECONDS = 604_800;

/** signingKey derives the SigV4 key of a day, a region and S3. */
export function signingKey(secret: string, date: string, region: string): Buffer {
  const kDate = createHmac("sha256", `AWS4${secret}`).update(date).digest();
  const kRegion = createHmac("sha256", kDate).update(region).digest();
  const kService = createHmac("sha256", kRegion).update("s3").digest();
  return createHmac("sha256", kService).update("aws4_request").digest();
}

/** uriEscape is SigV4's URI encoding: RFC 3986 unreserved characters stay, everything else is %XX. */
function uriEscape(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** canonicalQuery is the sorted, re-encoded query string without the signature itself. */
function canonicalQuery(rawQuery: string): string {
  const pairs = rawQuery
    .split("&")
    .filter((part) => part !== "")
    .map((part) => {
      const at = part.indexOf("=");
      const [name, value] = at < 0 ? [part, ""] : [part.slice(0, at), part.slice(at + 1)];
      return [uriEscape(decode(name)), uriEscape(decode(value))] as const;
    })
    .filter(([name]) => name !== "X-Amz-Signature");
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join("&");
}

function headerValue(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return text.trim().replace(/\s+/g, " ");
}

/** The parts of a signature, from the Authorization header or the presigned query. */
interface Claimed {
  credential: string;
  signedHeaders: string[];
  signature: string;
  amzDate: string;
  payloadHash: string;
}

const mismatch: S3Refusal = {
  status: 403,
  code: "SignatureDoesNotMatch",
  message: "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
};

function refusal(status: number, code: string, message: string): S3Refusal {
  return { status, code, message };
}

/** fromHeader reads a header-authenticated request's claim, or refuses it. */
function fromHeader(req: IncomingMessage, authorization: string, now: Date): Claimed | S3Refusal {
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization.trim());
  if (!match) return refusal(400, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
  const amzDate = headerValue(req, "x-amz-date");
  const payloadHash = headerValue(req, "x-amz-content-sha256");
  if (!payloadHash) return refusal(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
  const time = parseAmzDate(amzDate);
  if (time === undefined) return refusal(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  if (Math.abs(time - now.getTime()) > MAX_SKEW_MS) {
    return refusal(403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.");
  }
  return { credential: match[1]!, signedHeaders: match[2]!.split(";"), signature: match[3]!, amzDate, payloadHash };
}

/** fromQuery reads a presigned URL's claim (expiry included), or refuses it. */
function fromQuery(params: URLSearchParams, now: Date): Claimed | S3Refusal {
  const credential = params.get("X-Amz-Credential");
  const signedHeaders = params.get("X-Amz-SignedHeaders");
  const signature = params.get("X-Amz-Signature") ?? "";
  const amzDate = params.get("X-Amz-Date") ?? "";
  const expires = Number(params.get("X-Amz-Expires"));
  if (params.get("X-Amz-Algorithm") !== ALGORITHM || !credential || !signedHeaders || !/^[0-9a-f]{64}$/.test(signature)) {
    return refusal(
      400,
      "AuthorizationQueryParametersError",
      "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.",
    );
  }
  const time = parseAmzDate(amzDate);
  if (time === undefined || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    return refusal(400, "AuthorizationQueryParametersError", "X-Amz-Date must be in ISO 8601 basic format and X-Amz-Expires between 1 and 604800 seconds.");
  }
  if (time - now.getTime() > MAX_SKEW_MS) return refusal(403, "AccessDenied", "Request is not valid yet");
  if (now.getTime() > time + expires * 1000) return refusal(403, "AccessDenied", "Request has expired");
  return { credential, signedHeaders: signedHeaders.split(";"), signature, amzDate, payloadHash: params.get("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD" };
}

/** parseAmzDate reads 20261127T175454Z, or answers undefined. */
function parseAmzDate(text: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

/**
 * verifySigV4 recomputes the request's SigV4 signature (header or presigned query) with the
 * stand-in's secret and answers the signed payload hash, or S3's refusal: 403 AccessDenied for an
 * unsigned request or an expired URL, SignatureDoesNotMatch for a wrong secret or any change to
 * the method, path, query or signed headers, InvalidAccessKeyId for another access key.
 * The payload hash itself is checked against the body by the caller, once the body is read.
 */
export function verifySigV4(req: IncomingMessage, credentials: SigV4Credentials, now: Date): SignedRequest | S3Refusal {
  const raw = req.url ?? "/";
  const at = raw.indexOf("?");
  const [path, rawQuery] = at < 0 ? [raw, ""] : [raw.slice(0, at), raw.slice(at + 1)];
  const params = new URLSearchParams(rawQuery);
  const authorization = headerValue(req, "authorization");
  if (!authorization && !params.has("X-Amz-Signature")) return refusal(403, "AccessDenied", "Anonymous access is not allowed; sign the request.");
  const claimed = authorization ? fromHeader(req, authorization, now) : fromQuery(params, now);
  if ("status" in claimed) return claimed;
  const [accessKeyId, day, region, service, terminal] = claimed.credential.split("/");
  if (!day || !region || service !== "s3" || terminal !== "aws4_request" || claimed.amzDate.slice(0, 8) !== day) {
    return refusal(400, "AuthorizationHeaderMalformed", "The authorization credential scope is malformed.");
  }
  if (credentials.accessKeyId !== undefined && accessKeyId !== credentials.accessKeyId) {
    return refusal(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  }
  if (!claimed.signedHeaders.includes("host")) return mismatch;
  const headers = [...claimed.signedHeaders].sort();
  const canonical = [
    req.method ?? "GET",
    path,
    canonicalQuery(rawQuery),
    ...headers.map((name) => `${name}:${headerValue(req, name)}`),
    "",
    headers.join(";"),
    claimed.payloadHash,
  ].join("\n");
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = [ALGORITHM, claimed.amzDate, scope, createHash("sha256").update(canonical).digest("hex")].join("\n");
  const expected = createHmac("sha256", signingKey(credentials.secretAccessKey, day, region))
    .update(toSign)
    .digest();
  const given = Buffer.from(claimed.signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return mismatch;
  return { payloadHash: claimed.payloadHash };
}

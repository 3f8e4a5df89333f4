// The integrity checks S3 makes on an uploaded body, for the S3 stand-in: the signed payload hash
// (x-amz-content-sha256), Content-MD5, and the flexible checksums (x-amz-checksum-<algorithm>, as a
// header, a presigned URL's query parameter, or an aws-chunked trailer). A presigned PUT that
// carries the checksum of an empty body (x-amz-checksum-crc32=AAAAAA==, what the SDK adds by
// default) is refused here as S3 refuses it, so the local server meets what AWS would do.
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import type { S3Refusal } from "#local/s3-sigv4.ts";

/** crc32cTable is the table of CRC-32C (Castagnoli, reflected polynomial 0x82F63B78). */
const crc32cTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32c(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = crc32cTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function bigEndian(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
}

/** digests are the algorithms the stand-in computes, each with the digest S3 compares (base64 of these bytes). */
const digests: Record<string, { name: string; digest: (body: Buffer) => Buffer }> = {
  crc32: { name: "CRC32", digest: (body) => bigEndian(crc32(body)) },
  crc32c: { name: "CRC32C", digest: (body) => bigEndian(crc32c(body)) },
  sha1: { name: "SHA1", digest: (body) => createHash("sha1").update(body).digest() },
  sha256: { name: "SHA256", digest: (body) => createHash("sha256").update(body).digest() },
};

/** checksumClaims gathers the x-amz-checksum-* values of a request: headers, query parameters (a presigned URL) and trailers. */
function checksumClaims(sources: Record<string, string | string[] | undefined>[]): Map<string, string> {
  const claims = new Map<string, string>();
  for (const source of sources) {
    for (const [name, value] of Object.entries(source)) {
      const lower = name.toLowerCase();
      if (!lower.startsWith("x-amz-checksum-") || lower === "x-amz-checksum-mode" || lower === "x-amz-checksum-type" || value === undefined) continue;
      claims.set(lower.slice("x-amz-checksum-".length), Array.isArray(value) ? value.join(",") : value);
    }
  }
  return claims;
}

/**
 * checkBody makes S3's checks of a PUT body and answers its refusal, or undefined when the body
 * is what the request claimed: the payload hash when it is a hex SHA-256 (400
 * XAmzContentSHA256Mismatch), Content-MD5 (400 BadDigest), and at most one x-amz-checksum-*
 * (400 InvalidRequest for two or an unreadable value, 400 BadDigest for a mismatch).
 */
export function checkBody(
  body: Buffer,
  request: { payloadHash: string; headers: Record<string, string | string[] | undefined>; query: URLSearchParams; trailers: Record<string, string> },
): S3Refusal | undefined {
  if (/^[0-9a-f]{64}$/.test(request.payloadHash) && createHash("sha256").update(body).digest("hex") !== request.payloadHash) {
    return { status: 400, code: "XAmzContentSHA256Mismatch", message: "The provided 'x-amz-content-sha256' header does not match what was computed." };
  }
  const md5 = request.headers["content-md5"];
  if (typeof md5 === "string" && createHash("md5").update(body).digest("base64") !== md5) {
    return { status: 400, code: "BadDigest", message: "The Content-MD5 you specified did not match what we received." };
  }
  const claims = checksumClaims([request.headers, Object.fromEntries(request.query), request.trailers]);
  if (claims.size > 1) {
    return { status: 400, code: "InvalidRequest", message: "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed." };
  }
  for (const [algorithm, value] of claims) {
    const known = digests[algorithm];
    if (algorithm === "crc64nvme") return { status: 501, code: "NotImplemented", message: "The S3 stand-in does not compute CRC64NVME checksums; use CRC32." };
    if (!known) return { status: 400, code: "InvalidRequest", message: `Value for x-amz-checksum-${algorithm} header is invalid.` };
    const expected = known.digest(body);
    const given = Buffer.from(value, "base64");
    if (given.length !== expected.length || given.toString("base64") !== value) {
      return { status: 400, code: "InvalidRequest", message: `Value for x-amz-checksum-${algorithm} header is invalid.` };
    }
    if (!given.equals(expected)) return { status: 400, code: "BadDigest", message: `The ${known.name} you specified did not match the calculated checksum.` };
  }
  return undefined;
}

import { SignetError } from "#domain/shared/errors.ts";

// The office function reaches S3 only through presigned URLs its caller signed (it has no S3
// permission of its own), over the VPC's S3 gateway endpoint: the one route out of its subnets.

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** checkedUrl refuses anything but https (and http to loopback, the local S3 stand-in): a job cannot point the office function elsewhere. */
function checkedUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SignetError("VALIDATION_ERROR", "The office job names a transfer URL that is not a URL.");
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname))) return url;
  throw new SignetError("VALIDATION_ERROR", "The office job names a transfer URL that is neither https nor the local stand-in.");
}

function unavailable(what: string, cause: unknown): SignetError {
  return new SignetError("SERVICE_UNAVAILABLE", `The office function could not ${what} the document; retry in a moment.`, { retryAfterSeconds: 5, cause });
}

/** readPresigned GETs a presigned URL within timeoutMs, refusing more than maxBytes (counted while it streams in, whatever Content-Length says). */
export async function readPresigned(text: string, maxBytes: number, timeoutMs: number): Promise<Buffer> {
  const url = checkedUrl(text);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
  } catch (error) {
    throw unavailable("fetch", error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw unavailable("fetch", new Error(`GET of the staged input answered ${response.status}`));
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += chunk.length;
      if (size > maxBytes) {
        await response.body.cancel().catch(() => undefined);
        throw new SignetError("PAYLOAD_TOO_LARGE", "The staged document is larger than its job declared.");
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof SignetError) throw error;
    throw unavailable("fetch", error);
  }
  return Buffer.concat(chunks, size);
}

/** writePresigned PUTs bytes to a presigned URL within timeoutMs. */
export async function writePresigned(text: string, bytes: Uint8Array, timeoutMs: number): Promise<void> {
  const url = checkedUrl(text);
  let response: Response;
  try {
    response = await fetch(url, { method: "PUT", body: bytes, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
  } catch (error) {
    throw unavailable("store", error);
  }
  await response.body?.cancel();
  if (!response.ok) throw unavailable("store", new Error(`PUT of the output answered ${response.status}`));
}

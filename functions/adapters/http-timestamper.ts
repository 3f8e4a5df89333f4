import { createHash } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { Timestamper } from "#domain/signing/cades-signature.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { buildTimestampRequest, parseTimestampResponse, type TimestampRequest } from "#domain/pki/rfc3161.ts";

const MAX_RESPONSE_BYTES = 256 * 1024;

/**
 * timestampAgents keep connections to the TSA open between signings: one pair per container,
 * so a warm Lambda skips the TCP (and TLS) handshake on every timestamp.
 */
export const timestampAgents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 16 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

function post(url: URL, body: Buffer, timeoutMs: number): Promise<{ status: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === "https:";
    const client = secure ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        agent: secure ? timestampAgents.https : timestampAgents.http,
        headers: { "content-type": "application/timestamp-query", "content-length": body.length, accept: "application/timestamp-reply" },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) response.destroy(new Error("answer too large"));
          else chunks.push(chunk);
        });
        response.on("error", reject);
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/**
 * createHttpTimestamper asks an RFC 3161 timestamp authority over HTTP(S) (the operator's
 * configured SIGNET_TSA_URL, not user input). Any failure is TSA_FAILED: Signet never signs
 * without the timestamp it was configured to add.
 */
export function createHttpTimestamper(tsaUrl: string, timeoutMs = 10_000): Timestamper {
  const url = new URL(tsaUrl);
  const ask = async (imprint: Buffer, check: (bytes: Buffer, request: TimestampRequest) => Promise<Buffer>) => {
    const request = buildTimestampRequest(imprint);
    let answer: { status: number; bytes: Buffer };
    try {
      answer = await post(url, request.der, timeoutMs);
    } catch (error) {
      throw new SignetError("TSA_FAILED", `The timestamp authority at ${url.host} did not answer; nothing was signed. Retry later.`, { cause: error });
    }
    if (answer.status !== 200) {
      throw new SignetError("TSA_FAILED", `The timestamp authority at ${url.host} answered HTTP ${answer.status}; nothing was signed. Retry later.`);
    }
    try {
      return await check(answer.bytes, request);
    } catch (error) {
      throw new SignetError("TSA_FAILED", `The timestamp authority at ${url.host} gave an unusable answer (${(error as Error).message}); nothing was signed.`, {
        cause: error,
      });
    }
  };
  return {
    timestamp: (data) => ask(createHash("sha256").update(data).digest(), (bytes, request) => parseTimestampResponse(bytes, request, data)),
    timestampDigest: (digest) => ask(digest, (bytes, request) => parseTimestampResponse(bytes, request, { digest })),
  };
}

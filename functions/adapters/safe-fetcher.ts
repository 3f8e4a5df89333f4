import http from "node:http";
import https from "node:https";
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from "request-filtering-agent";
import { config } from "#config";
import { SignetError } from "#domain/errors.ts";
import type { FetchedResource, Fetcher } from "#domain/fetcher.ts";
import { formatBytes } from "#domain/sizes.ts";

/** SafeFetcherOptions tune the fetcher; the defaults are the SPEC 7 values. */
export interface SafeFetcherOptions {
  allowHttp: boolean;
  timeoutMs: number;
  maxRedirects: number;
  /**
   * Addresses (IPs or CIDRs) reachable despite being private. Only tests set this, so they can
   * serve files from loopback; production leaves it empty.
   */
  allowAddresses: string[];
}

const defaults: SafeFetcherOptions = { allowHttp: false, timeoutMs: 10_000, maxRedirects: 3, allowAddresses: [] };

const fail = (what: string, reason: string, cause?: unknown) =>
  new SignetError("FETCH_FAILED", `Could not fetch the ${what}: ${reason}.`, cause === undefined ? {} : { cause });

/**
 * createSafeFetcher returns a Fetcher that checks every connection's resolved address at connect
 * time (request-filtering-agent: private, loopback, link-local, metadata and IPv4-mapped ranges,
 * IP literals in any spelling), follows at most maxRedirects redirects re-checking each hop,
 * stops after timeoutMs in total and aborts as soon as the body exceeds maxBytes.
 */
export function createSafeFetcher(options: Partial<SafeFetcherOptions> = {}): Fetcher {
  const settings = { ...defaults, ...options };
  const filter = { allowIPAddressList: settings.allowAddresses, keepAlive: false };
  const agents = { "http:": new RequestFilteringHttpAgent(filter), "https:": new RequestFilteringHttpsAgent(filter) };

  function checkUrl(raw: string, what: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new SignetError("VALIDATION_ERROR", `The ${what} URL is not a valid absolute URL.`);
    }
    if (url.protocol !== "https:" && !(settings.allowHttp && url.protocol === "http:")) {
      throw new SignetError(
        "VALIDATION_ERROR",
        `The ${what} URL must use https${settings.allowHttp ? " or http" : ""} (got ${url.protocol.replace(":", "")}).`,
      );
    }
    if (url.username || url.password) {
      throw new SignetError("VALIDATION_ERROR", `The ${what} URL must not contain credentials; make the file reachable without them.`);
    }
    return url;
  }

  function requestOnce(url: URL, maxBytes: number, what: string, signal: AbortSignal): Promise<{ redirect?: string; resource?: FetchedResource }> {
    return new Promise((resolve, reject) => {
      const client = url.protocol === "https:" ? https : http;
      const req = client.get(url, { agent: agents[url.protocol as "http:" | "https:"], signal, headers: { "user-agent": "Signet/1 (+document fetch)", accept: "*/*" } }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          // Resolved and checked by the caller: nothing in this callback may throw (it would be uncaught).
          resolve({ redirect: res.headers.location });
          return;
        }
        if (status !== 200) {
          res.resume();
          reject(fail(what, `the server answered HTTP ${status}`));
          return;
        }
        const declared = Number(res.headers["content-length"]);
        if (Number.isFinite(declared) && declared > maxBytes) {
          res.destroy();
          reject(tooLarge(what, maxBytes));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(tooLarge(what, maxBytes));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", (error) =>
          reject(signal.aborted ? fail(what, `no complete answer within ${settings.timeoutMs / 1000} s`, error) : fail(what, "the connection broke", error)),
        );
        res.on("end", () => {
          const name = fileNameOf(url);
          resolve({
            resource: {
              bytes: Buffer.concat(chunks, size),
              ...(res.headers["content-type"] ? { contentType: res.headers["content-type"] } : {}),
              ...(/\.[a-z0-9]{2,5}$/i.test(name) ? { fileName: name } : {}),
            },
          });
        });
      });
      req.on("error", (error) => {
        if (signal.aborted) reject(fail(what, `no complete answer within ${settings.timeoutMs / 1000} s`, error));
        else if (/is not allowed/.test(error.message)) reject(fail(what, "the address is private, loopback, link-local or otherwise not public", error));
        else reject(fail(what, `the connection failed (${(error as NodeJS.ErrnoException).code ?? "network error"})`, error));
      });
    });
  }

  return {
    async fetch(raw, { maxBytes, what }) {
      let url = checkUrl(raw, what);
      const signal = AbortSignal.timeout(settings.timeoutMs);
      for (let hop = 0; ; hop++) {
        const { redirect, resource } = await requestOnce(url, maxBytes, what, signal);
        if (resource) return resource;
        if (hop >= settings.maxRedirects) throw fail(what, `more than ${settings.maxRedirects} redirects`);
        try {
          url = checkUrl(new URL(redirect!, url).toString(), what);
        } catch (error) {
          throw fail(what, `a redirect led to a URL that is not allowed (${(error as Error).message})`);
        }
      }
    },
  };
}

/** fileNameOf is the last path segment of a URL, decoded when it is valid percent-encoding. */
function fileNameOf(url: URL): string {
  const segment = url.pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function tooLarge(what: string, maxBytes: number): SignetError {
  return new SignetError("PAYLOAD_TOO_LARGE", `The ${what} at the URL is larger than the ${formatBytes(maxBytes)} limit.`);
}

/** safeFetcher is the container's fetcher, configured from config.fetch (SIGNET_ALLOW_HTTP, SIGNET_FETCH_TIMEOUT_MS). */
export const safeFetcher: Fetcher = createSafeFetcher(config.fetch);

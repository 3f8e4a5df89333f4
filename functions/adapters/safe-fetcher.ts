import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import ipaddr from "ipaddr.js";
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from "request-filtering-agent";
import { classifyAddress } from "#domain/shared/address-policy.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { FetchedResource, Fetcher } from "#domain/shared/fetcher.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import type { SendResult, WebhookRequest, WebhookSender } from "#domain/webhooks/webhook-sender.ts";

/** SafeFetcherOptions tune the fetcher; the defaults are the documented ones (docs: configuration), which wiring overrides from config.fetch. */
export interface SafeFetcherOptions {
  allowHttp: boolean;
  timeoutMs: number;
  maxRedirects: number;
  /**
   * Addresses (IPs or CIDRs) reachable despite being private. Only tests set this, so they can
   * serve files from loopback; production leaves it empty.
   */
  allowAddresses: string[];
  /** Extra certificate authorities (PEM) HTTPS servers may chain to. Only tests set this, for a receiver on loopback. */
  ca?: string[];
}

const defaults: SafeFetcherOptions = { allowHttp: false, timeoutMs: 10_000, maxRedirects: 3, allowAddresses: [] };

/** ANSWER_READ_BYTES is how much of a webhook receiver's answer is read (and dropped) before the connection is closed. */
const ANSWER_READ_BYTES = 64 * 1024;

/** AddressRefusedError is the connect-time refusal of an address by classifyAddress. */
class AddressRefusedError extends Error {
  override readonly name = "AddressRefusedError";
  constructor(readonly reason: string) {
    super(`connecting to ${reason}: the address is not allowed`);
  }
}

/** addressGuard checks one resolved or literal address against the policy and the test-only allow-list. */
function addressGuard(allowAddresses: string[]): (address: string) => AddressRefusedError | undefined {
  const allowed = allowAddresses.map((entry) =>
    entry.includes("/") ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), entry.includes(":") ? 128 : 32] as const),
  );
  return (address) => {
    try {
      const parsed = ipaddr.process(address.replace(/%.*$/, ""));
      if (allowed.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits))) return undefined;
    } catch {
      // not an IP address: classifyAddress says so
    }
    const verdict = classifyAddress(address);
    return verdict.allowed ? undefined : new AddressRefusedError(verdict.reason);
  };
}

type CreateConnection = (options: http.ClientRequestArgs & net.NetConnectOpts, callback?: (error: Error | null, socket: Duplex) => void) => Duplex;

/**
 * withAddressPolicy makes an agent check every address with classifyAddress: the literal host
 * before connecting, every resolved address in the DNS lookup. request-filtering-agent's own
 * check stays underneath; this one adds the IPv6 forms that embed IPv4 (::7f00:1 and the like).
 */
function withAddressPolicy<A extends http.Agent>(agent: A, check: (address: string) => AddressRefusedError | undefined): A {
  const inner = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
  const lookup = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      for (const { address } of addresses) {
        const refused = check(address);
        if (refused) return callback(refused);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as unknown as net.LookupFunction;
  (agent as unknown as { createConnection: CreateConnection }).createConnection = (options, callback) => {
    const host = (options.host ?? "").replace(/^\[|\]$/g, "");
    const refused = net.isIP(host) !== 0 ? check(host) : undefined;
    if (refused) {
      const socket = new net.Socket();
      if (callback) callback(refused, socket);
      else process.nextTick(() => socket.destroy(refused));
      return socket;
    }
    return inner({ ...options, lookup }, callback);
  };
  return agent;
}

const fail = (what: string, reason: string, cause?: unknown) =>
  new SignetError("FETCH_FAILED", `Could not fetch the ${what}: ${reason}.`, cause === undefined ? {} : { cause });

/** Settle is the pair of functions that settle a promise. */
interface Settle<T> {
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

/** Redirect is an answer that points elsewhere: the location, not yet resolved nor checked. */
class Redirect {
  constructor(readonly location: string) {}
}

/**
 * SafeFetcher is a Fetcher that checks every connection's resolved address at connect time
 * (request-filtering-agent: private, loopback, link-local, metadata and IPv4-mapped ranges, IP
 * literals in any spelling), follows at most maxRedirects redirects re-checking each hop, stops
 * after timeoutMs in total and aborts as soon as the body exceeds maxBytes.
 */
class SafeFetcher implements Fetcher {
  readonly #settings: SafeFetcherOptions;
  readonly #agents: Record<"http:" | "https:", http.Agent>;

  constructor(options: Partial<SafeFetcherOptions>) {
    this.#settings = { ...defaults, ...options };
    const filter = { allowIPAddressList: this.#settings.allowAddresses, keepAlive: false, ...(this.#settings.ca ? { ca: this.#settings.ca } : {}) };
    const check = addressGuard(this.#settings.allowAddresses);
    this.#agents = {
      "http:": withAddressPolicy(new RequestFilteringHttpAgent(filter), check),
      "https:": withAddressPolicy(new RequestFilteringHttpsAgent(filter), check),
    };
  }

  async fetch(raw: string, { maxBytes, what }: { maxBytes: number; what: string }): Promise<FetchedResource> {
    const { timeoutMs, maxRedirects } = this.#settings;
    let url = this.#checkUrl(raw, what);
    const signal = AbortSignal.timeout(timeoutMs);
    for (let hop = 0; ; hop++) {
      const answer = await this.#requestOnce(url, maxBytes, what, signal);
      if (!(answer instanceof Redirect)) return answer;
      if (hop >= maxRedirects) throw fail(what, `more than ${maxRedirects} redirects`);
      try {
        url = this.#checkUrl(new URL(answer.location, url).toString(), what);
      } catch (error) {
        throw fail(what, `a redirect led to a URL that is not allowed (${(error as Error).message})`);
      }
    }
  }

  /**
   * post sends one POST under the same address policy and time limit as fetch, and follows no
   * redirect (a 3xx is the receiver's answer). Its body is read up to ANSWER_READ_BYTES and dropped.
   */
  async post(raw: string, request: WebhookRequest): Promise<SendResult> {
    let url: URL;
    try {
      url = this.#checkUrl(raw, "callback");
    } catch (error) {
      return { error: (error as Error).message, permanent: true };
    }
    const signal = AbortSignal.timeout(this.#settings.timeoutMs);
    return new Promise((resolve) => {
      const client = url.protocol === "https:" ? https : http;
      const headers = { ...request.headers, "user-agent": "Signet/1 (+webhook)", "content-length": String(Buffer.byteLength(request.body)) };
      const req = client.request(url, { method: "POST", agent: this.#agents[url.protocol as "http:" | "https:"], signal, headers }, (res) => {
        let read = 0;
        const done = () => resolve({ statusCode: res.statusCode ?? 0 });
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_READ_BYTES) res.destroy();
        });
        res.on("end", done).on("close", done).on("error", done);
      });
      req.on("error", (error) => resolve(this.#sendFailure(error, signal)));
      req.end(request.body);
    });
  }

  /** sendFailure words a POST that got no answer; a refused address is permanent, the rest may pass. */
  #sendFailure(error: Error, signal: AbortSignal): SendResult {
    if (signal.aborted) return { error: `no answer within ${this.#settings.timeoutMs / 1000} s`, permanent: false };
    if (error instanceof AddressRefusedError) return { error: `the callback URL's address is not allowed: ${error.reason}`, permanent: true };
    if (/is not allowed/.test(error.message))
      return { error: "the callback URL's address is private, loopback, link-local or otherwise not public", permanent: true };
    return { error: `the connection failed (${(error as NodeJS.ErrnoException).code ?? "network error"})`, permanent: false };
  }

  #checkUrl(raw: string, what: string): URL {
    const { allowHttp } = this.#settings;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new SignetError("VALIDATION_ERROR", `The ${what} URL is not a valid absolute URL.`);
    }
    if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
      throw new SignetError("VALIDATION_ERROR", `The ${what} URL must use https${allowHttp ? " or http" : ""} (got ${url.protocol.replace(":", "")}).`);
    }
    if (url.username || url.password) {
      throw new SignetError("VALIDATION_ERROR", `The ${what} URL must not contain credentials; make the file reachable without them.`);
    }
    return url;
  }

  #timedOut(what: string, cause: unknown): SignetError {
    return fail(what, `no complete answer within ${this.#settings.timeoutMs / 1000} s`, cause);
  }

  /** requestOnce makes one GET: the resource, or the redirect to follow. */
  #requestOnce(url: URL, maxBytes: number, what: string, signal: AbortSignal): Promise<FetchedResource | Redirect> {
    return new Promise((resolve, reject) => {
      const client = url.protocol === "https:" ? https : http;
      const headers = { "user-agent": "Signet/1 (+document fetch)", accept: "*/*" };
      const req = client.get(url, { agent: this.#agents[url.protocol as "http:" | "https:"], signal, headers }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          // Resolved and checked by the caller: nothing in this callback may throw (it would be uncaught).
          resolve(new Redirect(res.headers.location));
          return;
        }
        if (status !== 200) {
          res.resume();
          reject(fail(what, `the server answered HTTP ${status}`));
          return;
        }
        this.#receive(res, url, { maxBytes, what, signal }, { resolve, reject });
      });
      req.on("error", (error) => {
        if (signal.aborted) reject(this.#timedOut(what, error));
        else if (error instanceof AddressRefusedError) reject(fail(what, error.reason, error));
        else if (/is not allowed/.test(error.message)) reject(fail(what, "the address is private, loopback, link-local or otherwise not public", error));
        else reject(fail(what, `the connection failed (${(error as NodeJS.ErrnoException).code ?? "network error"})`, error));
      });
    });
  }

  /**
   * receive reads a 200 answer's body into the request's promise (settled directly, so the first
   * failure of request or body wins), refusing it as soon as it is larger than maxBytes (declared or counted).
   */
  #receive(res: http.IncomingMessage, url: URL, job: { maxBytes: number; what: string; signal: AbortSignal }, settle: Settle<FetchedResource>): void {
    const { maxBytes, what, signal } = job;
    const { resolve, reject } = settle;
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
    res.on("error", (error) => reject(signal.aborted ? this.#timedOut(what, error) : fail(what, "the connection broke", error)));
    res.on("end", () => {
      const name = fileNameOf(url);
      resolve({
        bytes: Buffer.concat(chunks, size),
        ...(res.headers["content-type"] ? { contentType: res.headers["content-type"] } : {}),
        ...(/\.[a-z0-9]{2,5}$/i.test(name) ? { fileName: name } : {}),
      });
    });
  }
}

/** createSafeFetcher returns a SafeFetcher: the address policy at connect time, bounded redirects, time and size. */
export function createSafeFetcher(options: Partial<SafeFetcherOptions> = {}): Fetcher {
  const fetcher = new SafeFetcher(options);
  // A plain function, as the port always was: callers may pass `fetch` on its own.
  return { fetch: (url, request) => fetcher.fetch(url, request) };
}

/** createSafeWebhookSender returns a WebhookSender on a SafeFetcher: the same address policy and time limit, no redirects followed. */
export function createSafeWebhookSender(options: Partial<SafeFetcherOptions> = {}): WebhookSender {
  const fetcher = new SafeFetcher(options);
  return { post: (url, request) => fetcher.post(url, request) };
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

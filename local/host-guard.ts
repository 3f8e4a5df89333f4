// DNS rebinding defence for everything the local server listens on. A web page on evil.example
// whose name is made to resolve to 127.0.0.1 reaches loopback listeners as "same origin", but
// its requests still carry `Host: evil.example`: every listener answers only to the names it is
// bound under. The stand-ins also refuse cross-origin requests (an `Origin` that is not their
// own), since some of them answer CORS for anyone (dynalite sends Access-Control-Allow-Origin *).
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";

/** LOOPBACK_NAMES are the host names every local listener answers to. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** hostnameOf is the name part of a Host header (or of a URL's host), lower case, without the port; IPv6 keeps its brackets. */
function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const text = host.trim().toLowerCase();
  const name = text.startsWith("[") ? text.slice(0, text.indexOf("]") + 1) : text.replace(/:\d*$/, "");
  return name === "" ? undefined : name;
}

/**
 * apiHostNames are the names the local API answers to: the loopback names, the address it is
 * bound to when that is a specific one (HOST=192.0.2.10), and the host of SIGNET_PUBLIC_URL.
 */
export function apiHostNames(boundHost: string, publicUrl: string | undefined): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bound = boundHost.includes(":") && !boundHost.startsWith("[") ? `[${boundHost}]` : boundHost;
  if (!["0.0.0.0", "[::]", ""].includes(bound)) names.add(bound.toLowerCase());
  if (publicUrl) names.add(new URL(publicUrl).hostname.toLowerCase());
  return names;
}

/** hostRefusal says why a request's Host is not one of `names`, or undefined when it is. HTTP/1.0 without Host passes (no browser sends that). */
export function hostRefusal(req: IncomingMessage, names: ReadonlySet<string>): string | undefined {
  const host = req.headers.host;
  if (host === undefined && req.httpVersion === "1.0") return undefined;
  const name = hostnameOf(host);
  if (name && names.has(name)) return undefined;
  return `the Host header names ${JSON.stringify(host ?? "")}, which this server does not answer to (it answers to ${[...names].join(", ")})`;
}

/**
 * standInRefusal is why a stand-in refuses a request: a Host other than a loopback name, or an
 * Origin other than its own (a web page on another site; the AWS SDK never sends one).
 */
function standInRefusal(req: IncomingMessage, port: number): string | undefined {
  const host = hostRefusal(req, LOOPBACK_NAMES);
  if (host) return host;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  try {
    const url = new URL(origin);
    if (LOOPBACK_NAMES.has(url.hostname.toLowerCase()) && Number(url.port || 80) === port) return undefined;
  } catch {
    // not a URL ("null" from a sandboxed page): refused below
  }
  return `cross-origin requests (Origin ${JSON.stringify(origin)}) are refused`;
}

/**
 * guardStandIn puts the Host and Origin checks in front of a stand-in's own request handling
 * (aws-ses-v2-local's Express app, dynalite, the S3 stand-in, the transaction shim): a refused
 * request gets 403 and never reaches the stand-in.
 */
export function guardStandIn(server: Server, name: string): void {
  const listeners = server.listeners("request") as RequestListener[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const port = (server.address() as { port?: number } | null)?.port ?? 0;
    const refusal = standInRefusal(req, port);
    if (refusal) {
      req.resume();
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8", connection: "close" });
      res.end(`The ${name} stand-in answers only on loopback: ${refusal}.\n`);
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { type FixtureServer, startFixtureServer } from "./http-fixture-server.ts";

/**
 * RegistryBehaviour is how the stand-in answers: "bearer" is public.ecr.aws's way (401 with a
 * bearer challenge, an anonymous token from the realm, then the manifest HEAD with it); the rest
 * are the faults a look-up must survive.
 */
export type RegistryBehaviour =
  | "bearer"
  | "anonymous" // answers the manifest HEAD without a token (a registry with open reads)
  | "no-challenge" // 401 without a WWW-Authenticate bearer challenge
  | "refuse-token" // hands out a token, then refuses it
  | "server-error" // 503 on the manifest
  | "no-digest" // 200 without Docker-Content-Digest
  | "hang"; // accepts the manifest request and never answers

/** RegistryStandIn is a local registry serving one repository with one tag. */
export interface RegistryStandIn {
  origin: string;
  repository: string;
  tag: string;
  digest: string;
  behaviour: RegistryBehaviour;
  /** Every request as "METHOD path", in order. */
  requests: string[];
  /** The Accept header of the last manifest request. */
  lastAccept?: string | undefined;
  close(): Promise<void>;
}

const TOKEN = "anonymous-pull-token";

/** startRegistryStandIn serves the Docker Registry HTTP API v2 token and manifest endpoints on 127.0.0.1. */
export async function startRegistryStandIn(options: { repository: string; tag: string; digest: string }): Promise<RegistryStandIn> {
  const state = {
    ...options,
    behaviour: "bearer" as RegistryBehaviour,
    requests: [] as string[],
    lastAccept: undefined as string | undefined,
  };
  let server: FixtureServer | undefined;
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    state.requests.push(`${req.method} ${url.pathname}`);
    if (url.pathname === "/token") {
      const scopeOk = url.searchParams.get("scope") === `repository:${state.repository}:pull` && url.searchParams.get("service") === "stand-in";
      res.writeHead(scopeOk ? 200 : 400, { "Content-Type": "application/json" }).end(scopeOk ? JSON.stringify({ token: TOKEN }) : "{}");
      return;
    }
    const manifest = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(url.pathname);
    if (!manifest || manifest[1] !== state.repository) return void res.writeHead(404).end();
    state.lastAccept = req.headers.accept;
    manifestAnswer(state.behaviour, req, res, { known: manifest[2] === state.tag, digest: state.digest, realm: `${server!.url("/token")}` });
  };
  server = await startFixtureServer(serve);
  return Object.assign(state, { origin: `http://127.0.0.1:${server.port}`, close: () => server.close() });
}

/** manifestAnswer answers one manifest request as the behaviour says. */
function manifestAnswer(behaviour: RegistryBehaviour, req: IncomingMessage, res: ServerResponse, tag: { known: boolean; digest: string; realm: string }): void {
  if (behaviour === "hang") return; // never answered; the look-up's time-out must end it
  if (behaviour === "server-error") return void res.writeHead(503).end();
  const authorised = req.headers.authorization === `Bearer ${TOKEN}` && behaviour !== "refuse-token";
  if (!authorised && behaviour !== "anonymous") {
    const challenge = behaviour === "no-challenge" ? {} : { "WWW-Authenticate": `Bearer realm="${tag.realm}",service="stand-in",scope="aws"` };
    return void res.writeHead(401, challenge).end();
  }
  if (!tag.known) return void res.writeHead(404).end();
  const headers = { "Content-Type": "application/vnd.oci.image.index.v1+json", ...(behaviour === "no-digest" ? {} : { "Docker-Content-Digest": tag.digest }) };
  res.writeHead(200, headers).end();
}

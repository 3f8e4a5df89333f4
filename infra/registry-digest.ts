/**
 * The digest a container image tag points at now, asked of its registry: the one place the CDK app
 * and `npm run image:pin` reach the network. First the registry's HTTP API (the Docker Registry
 * HTTP API v2 / OCI distribution spec, with the anonymous bearer token a public registry hands
 * out), which needs no container tool; else `<docker> buildx imagetools inspect` (CDK_DOCKER).
 * Every step has a time-out; failures become the two named errors below.
 */
import { execFile } from "node:child_process";

/** RegistryUnreachableError: no answer at all (no network, no DNS, refused, or the time-out passed). */
export class RegistryUnreachableError extends Error {
  override name = "RegistryUnreachableError";
}

/** RegistryAnswerError: the registry answered, but not with a digest (no such tag, refused token, 5xx, no digest header). */
export class RegistryAnswerError extends Error {
  override name = "RegistryAnswerError";
}

/** ImageLocation is where a tag lives: the registry's origin (https://public.ecr.aws), the repository path and the tag. */
export interface ImageLocation {
  origin: string;
  repository: string;
  tag: string;
}

/** LookUpOptions: how long the whole look-up may take, and the container CLI of the fallback (none: no fallback). */
export interface LookUpOptions {
  timeoutMs: number;
  docker?: string;
}

const digestPattern = /^sha256:[0-9a-f]{64}$/;

/** Manifest media types, newest first: a multi-platform tag answers with its index (what `FROM tag@digest` takes). */
const manifestTypes = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

/** imageLocation splits "host/path:tag" as Docker does (no host: Docker Hub, "library/" for one-part names). */
export function imageLocation(reference: string): ImageLocation {
  const match = /^(?:([^/]+[.:][^/]*|localhost)\/)?([a-z0-9._/-]+):([\w][\w.-]{0,127})$/.exec(reference);
  if (!match) throw new RegistryAnswerError(`"${reference}" is not an image reference with a tag (host/repository:tag)`);
  const [, host, path, tag] = match as unknown as [string, string | undefined, string, string];
  if (host === undefined) return { origin: "https://registry-1.docker.io", repository: path.includes("/") ? path : `library/${path}`, tag };
  return { origin: `https://${host}`, repository: path, tag };
}

/** bearerChallenge reads `Bearer realm="...",service="...",scope="..."` from a WWW-Authenticate header. */
function bearerChallenge(header: string | null): Record<string, string> | undefined {
  if (!header || !/^Bearer\s/i.test(header)) return undefined;
  const fields: Record<string, string> = {};
  for (const [, key, value] of header.matchAll(/(\w+)="([^"]*)"/g)) fields[key!.toLowerCase()] = value!;
  return fields.realm ? fields : undefined;
}

/** RegistryClient asks one registry, all within one deadline (its AbortSignal). */
class RegistryClient {
  constructor(
    private readonly image: ImageLocation,
    private readonly signal: AbortSignal,
  ) {}

  /** digest HEADs the tag's manifest, fetching an anonymous token first when the registry asks for one. */
  async digest(): Promise<string> {
    let answer = await this.headManifest(undefined);
    if (answer.status === 401) {
      const challenge = bearerChallenge(answer.headers.get("www-authenticate"));
      if (!challenge) throw new RegistryAnswerError(`${this.where()} answered 401 without a bearer token challenge`);
      answer = await this.headManifest(await this.token(challenge));
      if (answer.status === 401 || answer.status === 403) throw new RegistryAnswerError(`${this.where()} refused the anonymous token (${answer.status})`);
    }
    if (answer.status === 404) throw new RegistryAnswerError(`${this.where()} has no tag ${this.image.tag} (404)`);
    if (answer.status !== 200) throw new RegistryAnswerError(`${this.where()} answered ${answer.status} to the manifest request`);
    const digest = answer.headers.get("docker-content-digest");
    if (!digest || !digestPattern.test(digest))
      throw new RegistryAnswerError(`${this.where()} sent no Docker-Content-Digest sha256 header (got ${digest ?? "none"})`);
    return digest;
  }

  private where(): string {
    return `${this.image.origin}/v2/${this.image.repository}`;
  }

  /** token asks the challenge's realm for an anonymous pull token. */
  private async token(challenge: Record<string, string>): Promise<string> {
    const url = new URL(challenge.realm!);
    if (challenge.service) url.searchParams.set("service", challenge.service);
    url.searchParams.set("scope", `repository:${this.image.repository}:pull`);
    const answer = await this.send(url, { method: "GET" });
    if (answer.status !== 200) throw new RegistryAnswerError(`the token endpoint ${url.origin}${url.pathname} answered ${answer.status}`);
    let body: { token?: unknown; access_token?: unknown };
    try {
      body = (await answer.json()) as typeof body;
    } catch {
      throw new RegistryAnswerError(`the token endpoint ${url.origin}${url.pathname} answered no JSON`);
    }
    const token = body.token ?? body.access_token;
    if (typeof token !== "string" || token === "") throw new RegistryAnswerError(`the token endpoint ${url.origin}${url.pathname} answered no token`);
    return token;
  }

  private headManifest(token: string | undefined): Promise<Response> {
    const headers: Record<string, string> = { Accept: manifestTypes, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    return this.send(new URL(`${this.where()}/manifests/${this.image.tag}`), { method: "HEAD", headers });
  }

  private async send(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: this.signal, redirect: "follow" });
    } catch (error) {
      const cause = this.signal.aborted ? "no answer within the time-out" : ((error as Error & { cause?: Error }).cause ?? (error as Error)).message;
      throw new RegistryUnreachableError(`${url.origin} is unreachable: ${cause}`);
    }
  }
}

/** registryDigest asks the registry's HTTP API for the digest `image` points at, within `timeoutMs`. */
export function registryDigest(image: ImageLocation, timeoutMs: number): Promise<string> {
  return new RegistryClient(image, AbortSignal.timeout(timeoutMs)).digest();
}

/** dockerDigest runs `<docker> buildx imagetools inspect <reference>` and reads its "Digest:" line. */
function dockerDigest(reference: string, docker: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(docker, ["buildx", "imagetools", "inspect", reference], { timeout: timeoutMs, encoding: "utf8" }, (error, stdout, stderr) => {
      const firstLine = (stderr.trim() || error?.message || "").split("\n")[0]!.slice(0, 300);
      if (error) return reject(new RegistryAnswerError(`${docker} buildx imagetools inspect failed: ${firstLine}`));
      const digest = /^Digest:\s+(sha256:[0-9a-f]{64})$/m.exec(stdout)?.[1];
      if (!digest) return reject(new RegistryAnswerError(`${docker} buildx imagetools inspect printed no "Digest:" line`));
      resolve(digest);
    });
  });
}

/**
 * lookUpDigest is the digest `reference` (host/repository:tag) points at now: the registry's HTTP
 * API, else the container CLI's imagetools when one is given. Fails with the registry's error,
 * the fallback's reason added.
 */
export async function lookUpDigest(reference: string, options: LookUpOptions): Promise<string> {
  try {
    return await registryDigest(imageLocation(reference), options.timeoutMs);
  } catch (error) {
    if (!options.docker) throw error;
    try {
      return await dockerDigest(reference, options.docker, options.timeoutMs);
    } catch (fallback) {
      (error as Error).message += `; fallback: ${(fallback as Error).message}`;
      throw error;
    }
  }
}

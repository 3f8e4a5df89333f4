// A small S3-compatible stand-in for the local server and the tests: path-style GET, HEAD, PUT and
// DELETE of objects, each with its SigV4 signature (header or presigned URL) checked against the
// local credentials (local/s3-sigv4.ts) and a PUT body against its payload hash and checksums
// (local/s3-checksums.ts), and browser-style POST uploads with the presigned policy enforced
// (signature, expiry, exact fields, content-length-range), as S3 itself enforces it.
//
// Why not s3rver (npm, 3.7.1): its POST handler ignores the policy entirely (the `policy` field is
// "unimplemented"), so an oversize or expired upload would pass locally and fail on AWS; it also
// pulls busboy 0.3, fast-xml-parser 3 and a Koa stack, unmaintained since 2021. Enforcing the
// policy in front of it would mean parsing the same multipart body it parses again.
import { createHmac, createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import busboy from "busboy";
import { PRIVATE_FILE, PRIVATE_FOLDER } from "#local/data-folder.ts";
import { guardStandIn } from "#local/host-guard.ts";
import { checkBody } from "#local/s3-checksums.ts";
import { signingKey, verifySigV4, type SigV4Credentials } from "#local/s3-sigv4.ts";

/** S3StandIn is a running stand-in. */
export interface S3StandIn {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/** S3StandInOptions: where objects live (memory when no folder), the buckets to create, the secret policies are signed with. */
export interface S3StandInOptions {
  dataDir?: string;
  port?: number;
  buckets: string[];
  /** The secret access key clients sign with (the local credentials); every request's SigV4 signature and every POST policy is checked against it. */
  secretAccessKey: string;
  /** The access key id clients sign with; when given, a request naming another one is refused (InvalidAccessKeyId). */
  accessKeyId?: string | undefined;
}

interface StoredObject {
  bytes: Buffer;
  etag: string;
  lastModified: Date;
  contentType: string;
}

/** ObjectStore keeps objects per bucket, in memory or in files named by the encoded key. */
class ObjectStore {
  private readonly memory = new Map<string, StoredObject>();
  constructor(private readonly dir: string | undefined) {}

  private path(bucket: string, key: string): string {
    return join(this.dir!, bucket, encodeURIComponent(key));
  }

  hasBucket(bucket: string): boolean {
    return this.dir ? existsSync(join(this.dir, bucket)) : this.memory.has(`${bucket}/`);
  }

  createBucket(bucket: string): void {
    if (this.dir) mkdirSync(join(this.dir, bucket), { recursive: true, mode: PRIVATE_FOLDER });
    else this.memory.set(`${bucket}/`, { bytes: Buffer.alloc(0), etag: "", lastModified: new Date(), contentType: "" });
  }

  get(bucket: string, key: string): StoredObject | undefined {
    if (!this.dir) return this.memory.get(`${bucket}/${key}`);
    const path = this.path(bucket, key);
    if (!existsSync(path)) return undefined;
    const bytes = readFileSync(path);
    return { bytes, etag: md5(bytes), lastModified: statSync(path).mtime, contentType: "application/octet-stream" };
  }

  put(bucket: string, key: string, bytes: Buffer, contentType: string): string {
    const etag = md5(bytes);
    if (this.dir) writeFileSync(this.path(bucket, key), bytes, { mode: PRIVATE_FILE });
    else this.memory.set(`${bucket}/${key}`, { bytes, etag, lastModified: new Date(), contentType });
    return etag;
  }

  delete(bucket: string, key: string): void {
    if (this.dir) rmSync(this.path(bucket, key), { force: true });
    else this.memory.delete(`${bucket}/${key}`);
  }
}

function md5(bytes: Buffer): string {
  return `"${createHash("md5").update(bytes).digest("hex")}"`;
}

function xmlEscape(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><RequestId>${randomUUID()}</RequestId></Error>`;
  res.writeHead(status, { "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(body), Connection: "close" });
  res.end(body);
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** decodeAwsChunked undoes the SDK's aws-chunked content encoding (size;chunk-signature=..\r\n data \r\n ... 0\r\n trailers \r\n). */
function decodeAwsChunked(body: Buffer): { bytes: Buffer; trailers: Record<string, string> } {
  const parts: Buffer[] = [];
  const trailers: Record<string, string> = {};
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString("latin1").split(";")[0]!, 16);
    if (!Number.isFinite(size)) break;
    if (size === 0) {
      // The trailers (x-amz-checksum-crc32:...), one per line, until an empty line.
      for (const line of body
        .subarray(lineEnd + 2)
        .toString("latin1")
        .split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      break;
    }
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return { bytes: Buffer.concat(parts), trailers };
}

type Condition = Record<string, string> | [string, string | number, string | number];

/** PolicyError is a refusal by the POST policy, answered with S3's code and words. */
class PolicyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * checkPolicy checks the form fields of a POST upload against its signed policy, as S3 does:
 * the signature over the base64 policy, the expiry, every condition, and no field the policy
 * does not name. It answers the content-length-range, checked while the file streams in.
 */
function checkPolicy(fields: Map<string, string>, bucket: string, secret: string, now: Date): { min: number; max: number } {
  const get = (name: string) => fields.get(name.toLowerCase());
  const policyB64 = get("policy");
  const signature = get("x-amz-signature");
  const credential = get("x-amz-credential");
  if (!policyB64 || !signature || !credential || get("x-amz-algorithm") !== "AWS4-HMAC-SHA256") {
    throw new PolicyError(403, "AccessDenied", "Bucket POST must contain a Policy, X-Amz-Algorithm AWS4-HMAC-SHA256, X-Amz-Credential and X-Amz-Signature.");
  }
  const [, date, region] = credential.split("/");
  const expected = createHmac("sha256", signingKey(secret, date ?? "", region ?? ""))
    .update(policyB64)
    .digest("hex");
  if (expected !== signature)
    throw new PolicyError(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.");
  const policy = JSON.parse(Buffer.from(policyB64, "base64").toString("utf8")) as { expiration: string; conditions: Condition[] };
  if (new Date(policy.expiration).getTime() < now.getTime()) throw new PolicyError(403, "AccessDenied", "Invalid according to Policy: Policy expired.");
  const values = new Map(fields);
  values.set("bucket", bucket);
  const covered = new Set(["policy", "x-amz-signature", "file"]);
  let range = { min: 0, max: Number.MAX_SAFE_INTEGER };
  for (const condition of policy.conditions) {
    if (Array.isArray(condition)) {
      const [op, a, b] = condition;
      if (op === "content-length-range") {
        range = { min: Number(a), max: Number(b) };
        continue;
      }
      const name = String(a).replace(/^\$/, "").toLowerCase();
      covered.add(name);
      const value = values.get(name) ?? "";
      const ok = op === "eq" ? value === b : op === "starts-with" ? value.startsWith(String(b)) : false;
      if (!ok) throw new PolicyError(403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ["${op}", "$${name}", "${String(b)}"]`);
    } else {
      for (const [rawName, expectedValue] of Object.entries(condition)) {
        const name = rawName.toLowerCase();
        covered.add(name);
        if (values.get(name) !== expectedValue)
          throw new PolicyError(403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ["eq", "$${name}", "${expectedValue}"]`);
      }
    }
  }
  const extra = [...fields.keys()].filter((name) => !covered.has(name) && !name.startsWith("x-ignore-"));
  if (extra.length > 0) throw new PolicyError(403, "AccessDenied", `Invalid according to Policy: Extra input fields: ${extra.join(", ")}`);
  return range;
}

function handlePost(req: IncomingMessage, res: ServerResponse, bucket: string, store: ObjectStore, secret: string): void {
  const fields = new Map<string, string>();
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fieldSize: 64 * 1024, files: 1 } });
  } catch {
    sendError(res, 400, "MalformedPOSTRequest", "The body of your POST request is not well-formed multipart/form-data.");
    return;
  }
  let answered = false;
  const fail = (status: number, code: string, message: string) => {
    if (answered) return;
    answered = true;
    req.unpipe(parser);
    req.resume();
    sendError(res, status, code, message);
  };
  let sawFile = false;
  parser.on("field", (name, value) => {
    if (!sawFile) fields.set(name.toLowerCase(), value);
  });
  parser.on("file", (name, file, info) => {
    file.on("error", () => undefined);
    if (name !== "file" || sawFile) {
      file.resume();
      return;
    }
    sawFile = true;
    let range: { min: number; max: number };
    try {
      range = checkPolicy(fields, bucket, secret, new Date());
    } catch (error) {
      file.resume();
      if (error instanceof PolicyError) fail(error.status, error.code, error.message);
      else fail(400, "InvalidPolicyDocument", "Invalid Policy: Invalid JSON.");
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    file.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > range.max) {
        file.resume();
        fail(400, "EntityTooLarge", `Your proposed upload exceeds the maximum allowed size (${range.max} bytes).`);
        return;
      }
      chunks.push(chunk);
    });
    file.on("end", () => {
      if (answered) return;
      if (size < range.min) return fail(400, "EntityTooSmall", `Your proposed upload is smaller than the minimum allowed size (${range.min} bytes).`);
      const key = fields.get("key")!;
      if (!store.hasBucket(bucket)) return fail(404, "NoSuchBucket", "The specified bucket does not exist.");
      const etag = store.put(bucket, key, Buffer.concat(chunks, size), fields.get("content-type") ?? info.mimeType);
      answered = true;
      res.writeHead(204, { ETag: etag, Location: `/${bucket}/${encodeURIComponent(key)}` });
      res.end();
    });
  });
  parser.on("error", () => fail(400, "MalformedPOSTRequest", "The body of your POST request is not well-formed multipart/form-data."));
  parser.on("close", () => {
    if (!sawFile) fail(400, "InvalidArgument", "POST requires exactly one file upload per request.");
  });
  req.pipe(parser);
}

async function handle(req: IncomingMessage, res: ServerResponse, store: ObjectStore, credentials: SigV4Credentials): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const [, bucket = "", ...rest] = url.pathname.split("/");
  const key = decodeURIComponent(rest.join("/"));
  if (req.method === "POST" && !key && !url.search) return handlePost(req, res, bucket, store, credentials.secretAccessKey);
  // Everything else carries a SigV4 signature made with the local credentials, checked as S3 checks it.
  const signed = verifySigV4(req, credentials, new Date());
  if ("status" in signed) {
    req.resume();
    return sendError(res, signed.status, signed.code, signed.message);
  }
  if (!key) {
    if (req.method === "PUT") {
      store.createBucket(bucket);
      res.writeHead(200).end();
      return;
    }
    if (req.method === "HEAD") {
      res.writeHead(store.hasBucket(bucket) ? 200 : 404).end();
      return;
    }
    return sendError(res, 501, "NotImplemented", "Only object calls and bucket creation are implemented.");
  }
  if (!store.hasBucket(bucket)) return sendError(res, 404, "NoSuchBucket", "The specified bucket does not exist.");
  switch (req.method) {
    case "GET":
    case "HEAD": {
      const object = store.get(bucket, key);
      if (!object) {
        if (req.method === "HEAD") return void res.writeHead(404).end();
        return sendError(res, 404, "NoSuchKey", "The specified key does not exist.");
      }
      res.writeHead(200, {
        "Content-Type": object.contentType,
        "Content-Length": object.bytes.length,
        ETag: object.etag,
        "Last-Modified": object.lastModified.toUTCString(),
      });
      res.end(req.method === "GET" ? object.bytes : undefined);
      return;
    }
    case "PUT": {
      let body = await readAll(req);
      let trailers: Record<string, string> = {};
      if (signed.payloadHash.startsWith("STREAMING-") || String(req.headers["content-encoding"] ?? "").includes("aws-chunked")) {
        ({ bytes: body, trailers } = decodeAwsChunked(body));
      }
      const damaged = checkBody(body, { payloadHash: signed.payloadHash, headers: req.headers, query: url.searchParams, trailers });
      if (damaged) return sendError(res, damaged.status, damaged.code, damaged.message);
      if (req.headers["if-none-match"] === "*" && store.get(bucket, key)) {
        return sendError(res, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
      }
      const etag = store.put(bucket, key, body, String(req.headers["content-type"] ?? "application/octet-stream"));
      res.writeHead(200, { ETag: etag }).end();
      return;
    }
    case "DELETE":
      store.delete(bucket, key);
      res.writeHead(204).end();
      return;
    default:
      return sendError(res, 405, "MethodNotAllowed", "The specified method is not allowed against this resource.");
  }
}

/** startS3StandIn serves the stand-in on 127.0.0.1 (port 0 picks a free one) with the given buckets created. */
export async function startS3StandIn(options: S3StandInOptions): Promise<S3StandIn> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true, mode: PRIVATE_FOLDER });
  const store = new ObjectStore(options.dataDir);
  for (const bucket of options.buckets) store.createBucket(bucket);
  const server: Server = http.createServer((req, res) => {
    handle(req, res, store, { secretAccessKey: options.secretAccessKey, accessKeyId: options.accessKeyId }).catch(() => {
      if (!res.headersSent) sendError(res, 500, "InternalError", "The stand-in failed.");
      else res.destroy();
    });
  });
  server.requestTimeout = 0;
  guardStandIn(server, "S3");
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

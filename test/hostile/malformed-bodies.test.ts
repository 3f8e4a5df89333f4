// Hostile input against the real local server (real LibreOffice behind /v1/convert): every
// malformed body shape we could think of gets an answer or a closed connection, never a crash,
// and the server keeps answering /v1/health afterwards.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { rawRequest, request, type RawAnswer } from "./raw-http.ts";

let api: LocalApi;
let key: string;
let port: number;
let privateTmp: string;

beforeAll(async () => {
  // A private temp folder for the converter, so "no temp folder is left" is checked without other processes' files.
  privateTmp = mkdtempSync(join(tmpdir(), "signet-hostile-tmp-"));
  api = await startLocalApi("hostile-bodies", {
    SIGNET_TABLE: "signet-hostile-bodies",
    SIGNET_CONVERSION_CONCURRENCY: "1",
    SIGNET_LIBREOFFICE_TEMP_DIR: privateTmp,
  });
  port = Number(new URL(api.url).port);
  key = await obtainKey(api, "hostile");
}, 120_000);

afterAll(async () => {
  await api?.close();
  rmSync(privateTmp, { recursive: true, force: true });
});

const multipart = (boundary: string) => ({ "Content-Type": `multipart/form-data; boundary=${boundary}` });
const auth = () => ({ Authorization: `Bearer ${key}` });
const filePart = (boundary: string, content: string, name = "file", fileName = "a.docx") =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n`;

function withLength(method: string, path: string, headers: Record<string, string>, body: string | Buffer): Buffer {
  return request(method, path, { ...headers, "Content-Length": Buffer.byteLength(body) }, body);
}

async function expectHealthy(): Promise<void> {
  const response = await fetch(`${api.url}/v1/health`);
  expect(response.status).toBe(200);
  expect(((await response.json()) as { status: string }).status).toBe("healthy");
}

/** Every folder and file under root, relative, for before/after comparisons. */
function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      out.push(`${prefix}${name}`);
      try {
        if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`);
      } catch {
        // removed meanwhile
      }
    }
  };
  walk(root, "");
  return out;
}

describe("a truncated multipart body", () => {
  it("is 400 VALIDATION_ERROR, leaves no temp folder, and the server keeps answering", async () => {
    const before = tree(privateTmp);
    const body = `--X\r\nContent-Disposition: form-data; name="file"; filename="a.docx"\r\n\r\nhello`;
    const answer = await rawRequest(port, [withLength("POST", "/v1/convert?from=docx", { ...multipart("X"), ...auth() }, body)]);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(answer.json?.message).toMatch(/the multipart body ended before its closing boundary/i);
    expect(tree(privateTmp).filter((entry) => !before.includes(entry))).toEqual([]);
    await expectHealthy();
  });

  it("is 400 as well when the client sends it in pieces", async () => {
    const body = `--X\r\nContent-Disposition: form-data; name="file"; filename="a.docx"\r\n\r\n${"x".repeat(100_000)}`;
    const bytes = withLength("POST", "/v1/convert?from=docx", { ...multipart("X"), ...auth() }, body);
    const answer = await rawRequest(port, [bytes.subarray(0, 300), bytes.subarray(300, 50_000), bytes.subarray(50_000)], { pauseMs: 20 });
    expect(answer.status).toBe(400);
    expect(answer.json?.message).toMatch(/ended before its closing boundary/);
    await expectHealthy();
  });
});

interface Shape {
  name: string;
  pieces: () => Array<string | Buffer>;
  after?: "wait" | "end" | "destroy";
  /** The status expected, or "any" where the client gives up the exchange itself. */
  status: number | "any";
  code?: string;
}

const B = "hostile-boundary";
const shapes: Shape[] = [
  {
    name: "multipart without a boundary",
    pieces: () => [withLength("POST", "/v1/convert?from=docx", { "Content-Type": "multipart/form-data", ...auth() }, filePart(B, "x") + `--${B}--\r\n`)],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "multipart whose boundary differs from the header's",
    pieces: () => [withLength("POST", "/v1/convert?from=docx", { ...multipart("other"), ...auth() }, filePart(B, "x") + `--${B}--\r\n`)],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "two file parts",
    pieces: () => [withLength("POST", "/v1/convert?from=docx", { ...multipart(B), ...auth() }, filePart(B, "a") + filePart(B, "b") + `--${B}--\r\n`)],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "an empty file part",
    pieces: () => [withLength("POST", "/v1/convert?from=docx", { ...multipart(B), ...auth() }, filePart(B, "") + `--${B}--\r\n`)],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "only the closing boundary",
    pieces: () => [withLength("POST", "/v1/convert?from=docx", { ...multipart(B), ...auth() }, `--${B}--\r\n`)],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "a part without headers",
    pieces: () => [withLength("POST", "/v1/convert?from=docx", { ...multipart(B), ...auth() }, `--${B}\r\n\r\nbody\r\n--${B}--\r\n`)],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "a part with 200 header lines",
    pieces: () => [
      withLength(
        "POST",
        "/v1/convert?from=docx",
        { ...multipart(B), ...auth() },
        `--${B}\r\n${Array.from({ length: 200 }, (_, i) => `X-H${i}: v`).join("\r\n")}\r\nContent-Disposition: form-data; name="file"; filename="a.docx"\r\n\r\nx\r\n--${B}--\r\n`,
      ),
    ],
    status: 422,
    code: "INVALID_DOCUMENT",
  },
  {
    name: "a part header of 100 KB",
    pieces: () => [
      withLength(
        "POST",
        "/v1/convert?from=docx",
        { ...multipart(B), ...auth() },
        `--${B}\r\nContent-Disposition: form-data; name="file"; filename="${"a".repeat(100_000)}.docx"\r\n\r\nx\r\n--${B}--\r\n`,
      ),
    ],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "random bytes as a multipart body",
    pieces: () => [
      withLength("POST", "/v1/convert?from=docx", { ...multipart(B), ...auth() }, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))),
    ],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  { name: "a 100 KB request header (Node's 431)", pieces: () => [request("GET", "/v1/health", { "X-Big": "a".repeat(100_000) })], status: 431 },
  {
    name: "invalid JSON",
    pieces: () => [withLength("POST", "/v1/sign", { "Content-Type": "application/json", ...auth() }, '{"document": {')],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "JSON nested 100 000 deep",
    pieces: () => [withLength("POST", "/v1/sign", { "Content-Type": "application/json", ...auth() }, "[".repeat(100_000) + "]".repeat(100_000))],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "JSON that is not UTF-8",
    pieces: () => [
      withLength(
        "POST",
        "/v1/verify",
        { "Content-Type": "application/json" },
        Buffer.concat([Buffer.from('{"document":{"base64":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}')]),
      ),
    ],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "a JSON string of lone surrogates",
    pieces: () => [withLength("POST", "/v1/verify", { "Content-Type": "application/json" }, '{"document":{"base64":"\\ud800\\udfff\\ud800"}}')],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "an empty JSON body",
    pieces: () => [withLength("POST", "/v1/verify", { "Content-Type": "application/json" }, "")],
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "Content-Length larger than the body, then half-close",
    pieces: () => [request("POST", "/v1/verify", { "Content-Type": "application/json", "Content-Length": 5000 }, '{"document":')],
    after: "end",
    status: "any",
  },
  // The first 3 bytes are a (broken) JSON body; the rest is read as a second, malformed request.
  {
    name: "Content-Length smaller than the body",
    pieces: () => [request("POST", "/v1/verify", { "Content-Type": "application/json", "Content-Length": 3 }, '{"document":{"base64":"AAAA"}}')],
    status: 400,
  },
  {
    name: "a non-numeric Content-Length (Node's 400)",
    pieces: () => [request("POST", "/v1/verify", { "Content-Type": "application/json", "Content-Length": "ten" }, "{}")],
    status: 400,
  },
  {
    name: "Content-Length and chunked together (Node's 400)",
    pieces: () => [
      request("POST", "/v1/verify", { "Content-Type": "application/json", "Content-Length": 2, "Transfer-Encoding": "chunked" }, "2\r\n{}\r\n0\r\n\r\n"),
    ],
    status: 400,
  },
  {
    name: "a malformed chunk size (Node's 400)",
    pieces: () => [request("POST", "/v1/verify", { "Content-Type": "application/json", "Transfer-Encoding": "chunked" }, "zz\r\n{}\r\n0\r\n\r\n")],
    status: 400,
  },
  {
    name: "a chunked body cut off, then half-close",
    pieces: () => [
      request(
        "POST",
        "/v1/convert?from=docx",
        { ...multipart(B), ...auth(), "Transfer-Encoding": "chunked" },
        `400\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.docx"\r\n\r\nabc`,
      ),
    ],
    after: "end",
    status: "any",
  },
  {
    name: "a connection reset in the middle of a multipart body",
    pieces: () => [request("POST", "/v1/convert?from=docx", { ...multipart(B), ...auth(), "Content-Length": 100_000 }, filePart(B, "x".repeat(10_000)))],
    after: "destroy",
    status: "any",
  },
  { name: "a request line that is not HTTP (Node's 400)", pieces: () => ["\x00\x01\x02 garbage\r\n\r\n"], status: 400 },
  { name: "a NUL byte in the path (Node's 400)", pieces: () => ["GET /v1/he\x00alth HTTP/1.1\r\nHost: x\r\n\r\n"], status: 400 },
  { name: "a header without a colon (Node's 400)", pieces: () => ["GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"], status: 400 },
];

describe("malformed bodies never end the server", () => {
  it.each(shapes)("$name", async (shape) => {
    const answer: RawAnswer = await rawRequest(port, shape.pieces(), { after: shape.after ?? "wait" });
    expect(answer.ended).toBe("closed");
    if (shape.status !== "any") {
      expect(answer.status).toBe(shape.status);
      if (shape.code) expect(answer.json).toMatchObject({ code: shape.code });
    }
    await expectHealthy();
  });

  it("converts a real DOCX with LibreOffice after all of that", async () => {
    const form = new FormData();
    form.append("file", new Blob([fixtureDocx()]), "after.docx");
    const response = await fetch(`${api.url}/v1/convert?from=docx`, { method: "POST", body: form, headers: auth() });
    expect(response.status).toBe(200);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
  }, 120_000);
});

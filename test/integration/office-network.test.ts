// LibreOffice in a box: no document makes LibreOffice open a connection or read a local
// file. A loopback listener counts every request while each vector (test/helpers/office-vectors.ts)
// is converted: by the input checks alone (no namespace), by the network namespace alone (documents
// as they are), warm and one-shot, and through the real local server (convert, annotate to=pdf,
// sign with a DOCX). Outputs are read back: the document's own text is there, the marker file's
// content and the listener's picture are not.
import { execFile, spawnSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLibreOfficeConverter, type LibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { detectIsolation } from "#adapters/libreoffice/isolation.ts";
import { NO_NAMESPACE_HERE, networkIsolationHere } from "#test/helpers/isolation-environment.ts";
import { intake } from "#domain/documents/intake.ts";
import { docFixture, pointStreamsAt } from "#test/helpers/compound-files.ts";
import { fixtureDocx, pngDeclaring, solidPng } from "#test/helpers/convert-fixtures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { linkedPictureOdt, vectors, writeMarkers, type Markers, type Vector } from "#test/helpers/office-vectors.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import PizZip from "pizzip";
import { unchecked } from "#test/helpers/prepared-documents.ts";
import { officeOptions } from "#test/helpers/office-options.ts";
import { converter } from "#wiring/conversion.ts";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "signet-office-network-"));
const markers: Markers = writeMarkers(dir);
const requests: string[] = [];
// What the listener serves: a 41 x 29 picture, so that a fetched image would show in the PDF.
const listener = http.createServer((req, res) => {
  requests.push(`${req.method} ${req.url}`);
  res.setHeader("content-type", "image/png");
  res.end(solidPng(41, 29, [0, 0, 255]));
});
await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
const all = vectors(base, markers);
const limits = {
  maxDocumentBytes: 25 * 1024 * 1024,
  maxEntries: 5000,
  maxUncompressedBytes: 200 * 1024 * 1024,
  maxImagePixels: 100_000_000,
  maxSvgBytes: 10 * 1024 * 1024,
};
/** bwrapHere: bubblewrap works on this system (asked of it directly, not of isolation.ts). */
const bwrapHere = spawnSync("bwrap", ["--ro-bind", "/", "/", "true"]).status === 0;
// What this machine allows, probed by the test (never by detectIsolation, the function under test).
const isolationPrefix = { netns: ["unshare", "--net", "--"], "userns-netns": ["unshare", "--user", "--map-root-user", "--net", "--"], none: [] }[
  networkIsolationHere
];

afterAll(async () => {
  listener.closeAllConnections();
  await new Promise((resolve) => listener.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** imageSizes lists "WxH" of every image in a PDF (pdfimages -list). */
async function imageSizes(pdf: Uint8Array): Promise<string[]> {
  const path = join(dir, `out-${process.hrtime.bigint()}.pdf`);
  writeFileSync(path, pdf);
  try {
    const { stdout } = await run("pdfimages", ["-list", path]);
    return stdout
      .split("\n")
      .slice(2)
      .filter((line) => line.trim())
      .map((line) => {
        const columns = line.trim().split(/\s+/);
        return `${columns[3]}x${columns[4]}`;
      });
  } finally {
    rmSync(path, { force: true });
  }
}

/** expectContained checks a PDF for the vector's own text and for nothing from outside. */
async function expectContained(pdf: Uint8Array, vector: Vector): Promise<void> {
  expect(Buffer.from(pdf.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
  const text = await pdfText(pdf);
  expect(text).toContain(vector.text);
  expect(text).not.toContain(markers.text);
  const sizes = await imageSizes(pdf);
  expect(sizes).not.toContain("41x29");
  expect(sizes).not.toContain("37x23");
}

/** converting converts one vector and checks that the listener heard nothing meanwhile. */
async function converting<T>(work: () => Promise<T>): Promise<T> {
  requests.length = 0;
  const result = await work();
  // A fetch LibreOffice started would have arrived by the time the conversion answered; give stragglers a moment.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(requests).toEqual([]);
  return result;
}

/**
 * checkedInMode are the vectors converted with the input checks alone in a mode: every one warm;
 * one-shot, the first of each source format. The checks rewrite the bytes before any LibreOffice
 * sees them, the same whatever the mode; what the mode changes is how LibreOffice opens a file (a
 * command line instead of UNO), which a vector per format exercises. Every vector one-shot was 44
 * LibreOffice starts, about 60 s of the suite on two idle cores; the namespace block below still
 * runs the documents as they are one-shot, where LibreOffice itself follows links.
 */
function checkedInMode(mode: "warm" | "oneshot"): Vector[] {
  if (mode === "warm") return all;
  return all.filter((vector, index) => all.findIndex((other) => other.from === vector.from) === index);
}

describe.each(["warm", "oneshot"] as const)("%s LibreOffice", (mode) => {
  describe("with the input checks and the host's network", () => {
    let office: LibreOfficeConverter;
    beforeAll(() => {
      office = createLibreOfficeConverter(officeOptions({ mode, concurrency: 1, timeoutMs: 60_000, isolation: "off" }));
    });
    afterAll(() => office?.close());

    it.each(checkedInMode(mode).map((vector) => [vector.name, vector] as const))("%s: no request, no local file", async (_, vector) => {
      const pdf = await converting(async () => office.convert(await intake(vector.bytes, vector.from, limits), { to: "pdf" }));
      await expectContained(pdf, vector);
      expect(office.state().mode).toBe(mode);
      expect(office.isolation()?.network).toBe("none");
    });
  });

  // These fail if LibreOffice is not put in a namespace, and fail naming what is missing where this
  // machine cannot make one (never a quiet skip).
  describe("in a network namespace, documents as they are", () => {
    let office: LibreOfficeConverter;
    beforeAll(() => {
      if (networkIsolationHere === "none") throw new Error(NO_NAMESPACE_HERE);
      office = createLibreOfficeConverter(officeOptions({ mode, concurrency: 1, timeoutMs: 60_000, isolation: "required", memoryLimitMb: 4096 }));
    });
    afterAll(() => office?.close());

    it("runs every LibreOffice process in another network namespace, under the address-space limit", async () => {
      const own = readlinkSync("/proc/self/ns/net");
      const seen = new Map<string, { net: string; limits: string }>();
      const look = () => {
        for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
          try {
            const argv = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0");
            // LibreOffice itself (soffice, oosplash, soffice.bin), not the one-shot's parent guard, which reads no document.
            if (!/soffice|oosplash/.test(argv[0] ?? "") || !argv.some((arg) => arg.includes(`signet-lo-${process.pid}-`))) continue;
            seen.set(pid, { net: readlinkSync(`/proc/${pid}/ns/net`), limits: readFileSync(`/proc/${pid}/limits`, "latin1") });
          } catch {
            // exited meanwhile
          }
        }
      };
      // Looked at while the conversion runs (a one-shot LibreOffice is gone once it answers).
      const timer = setInterval(look, 50);
      try {
        await office.convert(unchecked(fixtureDocx(), "docx"), { to: "pdf" });
        look();
      } finally {
        clearInterval(timer);
      }
      expect(seen.size).toBeGreaterThan(0);
      const limit = String(4096 * 1024 * 1024);
      for (const { net, limits } of seen.values()) {
        expect(net).not.toBe(own);
        expect(limits).toMatch(new RegExp(`Max address space\\s+${limit}\\s+${limit}`));
      }
    });

    // Without the checks, LibreOffice 7.4 itself fetches ODT background and bullet images: the namespace is what stops them.
    // An SVG picture's file: image is a local read no network namespace stops: the bubblewrap
    // sandbox does (the marker is outside it), and without one only the input checks do (below).
    const local = (vector: Vector) => vector.name.includes("SVG picture");
    const chosen = (mode === "warm" ? all : all.filter((vector) => vector.from === "odt")).filter((vector) => !local(vector));
    it.each(all.filter(local).map((vector) => [vector.name, vector] as const))(
      "%s as it is: no request, and the local picture the SVG points at is drawn only where no sandbox can be made",
      async (_, vector) => {
        const pdf = await converting(() => office.convert(unchecked(vector.bytes, vector.from), { to: "pdf" }));
        if (bwrapHere) expect(await imageSizes(pdf)).not.toContain("37x23");
        else expect(await imageSizes(pdf)).toContain("37x23");
      },
    );
    it.each(chosen.map((vector) => [vector.name, vector] as const))("%s: no request, no local file", async (_, vector) => {
      const pdf = await converting(() => office.convert(unchecked(vector.bytes, vector.from), { to: "pdf" }));
      await expectContained(pdf, vector);
      // The warm path's UNO pipe (a socket file) works inside the namespace: no fallback to one-shot.
      expect(office.state().mode).toBe(mode);
      expect(office.isolation()).toMatchObject({ network: networkIsolationHere, memoryBytes: 4096 * 1024 * 1024 });
    });
  });
});

describe("isolation settings", () => {
  it("required, where no sandbox can be made (no bwrap on PATH): 503 SERVICE_UNAVAILABLE, LibreOffice never started", async () => {
    const office = createLibreOfficeConverter(officeOptions({ soffice: "/usr/bin/soffice", isolation: "required", env: { PATH: join(dir, "empty") } }));
    try {
      const outcome = await office.convert(unchecked(fixtureDocx(), "docx"), { to: "pdf" }).catch((error: unknown) => error);
      expect(outcome).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("LibreOffice cannot be isolated on this server") });
    } finally {
      await office.close();
    }
  });

  it(`auto: the box this machine allows (${bwrapHere ? "bubblewrap, " : ""}${networkIsolationHere}, probed by the test with bwrap and unshare)`, async () => {
    const isolation = await detectIsolation("auto", undefined, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    expect(isolation.network).toBe(networkIsolationHere);
    expect(isolation.files).toBe(bwrapHere ? "bwrap" : "none");
    // bubblewrap makes the network namespace itself (its --unshare-net); without it, unshare does.
    if (networkIsolationHere !== "none") expect(isolation.prefix).toEqual(bwrapHere ? [] : [expect.stringMatching(/unshare$/), ...isolationPrefix.slice(1)]);
  });

  it("off: no namespace, no sandbox, and the summary says so", async () => {
    const isolation = await detectIsolation("off", 1024 * 1024 * 1024, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    expect(isolation).toMatchObject({ network: "none", files: "none" });
    expect(isolation.summary).toMatch(
      /^LibreOffice runs with the host's network and files \(SIGNET_LIBREOFFICE_ISOLATION=off\); address space capped at 1024 MB per process$/,
    );
    expect(isolation.prefix).toEqual([expect.stringMatching(/prlimit$/), `--as=${1024 * 1024 * 1024}`, "--"]);
  });
});

/** saveAsDoc has LibreOffice (in a namespace of its own where there is one, so it fetches nothing either) save a document as a Word 97 file. */
async function saveAsDoc(bytes: Buffer, extension: string): Promise<Buffer> {
  const source = join(dir, `doc-${process.hrtime.bigint()}.${extension}`);
  writeFileSync(source, bytes);
  const argv = [...isolationPrefix, "soffice", `-env:UserInstallation=${pathToFileURL(join(dir, "doc-profile")).href}`, "--headless", "--norestore"];
  await run(argv[0]!, [...argv.slice(1), "--convert-to", "doc:MS Word 97", "--outdir", dir, source], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    timeout: 60_000,
  });
  return readFileSync(source.replace(/\.[a-z]+$/, ".doc"));
}

/** docVectors are the RTF field vectors saved as Word 97 files. */
async function docVectors(): Promise<Vector[]> {
  const made: Vector[] = [];
  for (const vector of all.filter((v) => v.from === "rtf" && /INCLUDETEXT|LINK/.test(v.name))) {
    made.push({ ...vector, name: vector.name.replace("rtf", "doc"), from: "doc", bytes: await saveAsDoc(vector.bytes, "rtf") });
  }
  return made;
}

/**
 * linkedPictureDocs are Word 97 files with a picture linked to the listener and no linking field:
 * one anchored to its paragraph (the link is in OfficeArt properties), one as a character whose
 * INCLUDEPICTURE field LibreOffice also wrote is renamed QUOTE (same length), leaving the PICF.
 */
async function linkedPictureDocs(): Promise<Array<{ name: string; bytes: Buffer; url: string; issue: string }>> {
  const anchoredUrl = `${base}/doc-anchored.png`;
  const inlineUrl = `${base}/doc-inline.png`;
  const anchored = await saveAsDoc(linkedPictureOdt("Anchored", anchoredUrl, "paragraph"), "odt");
  const inline = await saveAsDoc(linkedPictureOdt("Inline", inlineUrl, "as-char"), "odt");
  const field = Buffer.from("INCLUDEPICTURE", "utf16le");
  expect(inline.indexOf(field)).toBeGreaterThan(0);
  inline.set(Buffer.from("QUOTE         ", "utf16le"), inline.indexOf(field));
  return [
    { name: "anchored", bytes: anchored, url: anchoredUrl, issue: "linked picture (OfficeArt, 1Table stream)" },
    { name: "inline without its field", bytes: inline, url: inlineUrl, issue: "linked picture (PICF, Data stream)" },
  ];
}

/** hugePngDocx is a DOCX holding a 10 MB PNG that declares 60000 x 60000 pixels. */
function hugePngDocx(): Buffer {
  const png = pngDeclaring(60000, 60000, 10 * 1024 * 1024);
  const zip = new PizZip(fixtureDocx());
  zip.file("word/media/image1.png", png);
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

describe("through the local server (warm LibreOffice, isolation as the system allows)", () => {
  let api: LocalApi;
  let key: string;
  beforeAll(async () => {
    // Every vector goes through convert, annotate and sign with one key: more than the default 60 a minute.
    api = await startLocalApi("office-network", { SIGNET_TABLE: "signet-office-network", SIGNET_CONVERSION_CONCURRENCY: "1", SIGNET_KEY_RATE_LIMIT: "1000" });
    key = await obtainKey(api, "office");
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  async function convert(bytes: Buffer, from: string): Promise<Response> {
    const form = new FormData();
    form.append("file", new Blob([bytes]), `document.${from}`);
    return fetch(`${api.url}/v1/convert?from=${from}&to=pdf`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } });
  }

  it(`puts LibreOffice in the network namespace this machine allows (${networkIsolationHere}, probed by the test), and says so`, async () => {
    // The converter decides its isolation on first use: one conversion, then its mode.
    const response = await convert(fixtureDocx(), "docx");
    expect(response.status).toBe(200);
    expect(converter(api.container).isolation()?.network).toBe(networkIsolationHere);
  });

  it.each(all.map((vector) => [vector.name, vector] as const))("convert %s: 200, no request, no local file", async (_, vector) => {
    const response = await converting(() => convert(vector.bytes, vector.from));
    expect(response.status).toBe(200);
    await expectContained(Buffer.from(await response.arrayBuffer()), vector);
  });

  const docx = all.filter((vector) => vector.from === "docx");
  it.each(docx.map((vector) => [vector.name, vector] as const))("annotate to=pdf %s: 200, no request", async (_, vector) => {
    const { status, json } = await converting(() =>
      api.postJson("/v1/annotate?to=pdf", { document: { base64: vector.bytes.toString("base64") }, fields: [] }, key),
    );
    expect(status).toBe(200);
    await expectContained(Buffer.from((json.document.base64 as string).replace(/^data:[^,]*,/, ""), "base64"), vector);
  });

  it.each(docx.map((vector) => [vector.name, vector] as const))("sign %s: 200, no request", async (_, vector) => {
    const body = {
      document: { base64: vector.bytes.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-25T10:00:00Z" }],
      certificate: { enabled: false },
    };
    const { status, json } = await converting(() => api.postJson("/v1/sign", body, key));
    expect(status).toBe(200);
    await expectContained(Buffer.from(json.document.base64 as string, "base64"), vector);
  });

  it("refuses Word 97 files with linking fields: 422, no request", async () => {
    const docs = await docVectors();
    expect(docs.length).toBe(2);
    for (const vector of docs) {
      const response = await converting(() => convert(vector.bytes, "doc"));
      expect(response.status).toBe(422);
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe("INVALID_DOCUMENT");
      expect(body.message).toMatch(/has a (INCLUDETEXT|LINK) field, which loads content from outside the document/);
    }
  });

  it("refuses Word 97 files with a picture linked without a field: 422 naming the reason, no request", async () => {
    for (const doc of await linkedPictureDocs()) {
      // The link is really in the file (UTF-16 in OfficeArt, 8-bit in the PICF), and no field names it.
      expect(doc.bytes.includes(Buffer.from(doc.url, "utf16le")) || doc.bytes.includes(Buffer.from(doc.url, "latin1"))).toBe(true);
      expect(doc.bytes.includes(Buffer.from("INCLUDEPICTURE", "utf16le"))).toBe(false);
      const response = await converting(() => convert(doc.bytes, "doc"));
      expect(response.status, doc.name).toBe(422);
      expect(await response.json()).toMatchObject({
        code: "INVALID_DOCUMENT",
        message:
          "The .doc file has a picture linked to a file or URL, which loads content from outside the document; Signet does not follow such links. Break the link in a word processor (or save as .docx) and upload it again.",
        details: [{ field: "file", issue: doc.issue }],
      });
    }
  });

  it("refuses a .doc whose directory points every stream at one sector chain (each would be read and copied again): 422 before reading it", async () => {
    const bomb = pointStreamsAt(docFixture("embedded-picture-anchored.doc"), "WordDocument");
    const response = await converting(() => convert(bomb, "doc"));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      code: "INVALID_DOCUMENT",
      message: "The .doc file is damaged (its streams claim more bytes than the file holds); save it again from a word processor and upload it again.",
    });
  });

  it("refuses an SVG picture declaring 60000 x 60000 (413 IMAGE_TOO_LARGE) or entities (422 INVALID_DOCUMENT) in convert and annotate to=pdf, no request", async () => {
    const withSvg = (svg: string) => {
      const zip = new PizZip(fixtureDocx());
      zip.file("word/media/image1.svg", svg);
      return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
    };
    const huge = withSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="60000" height="60000"><image href="${base}/svg-huge.png"/></svg>`);
    const message =
      "The image word/media/image1.svg is 60000 x 60000 pixels (3600 megapixels); the limit is 100 megapixels per image. Scale it down and try again.";
    const converted = await converting(() => convert(huge, "docx"));
    expect(converted.status).toBe(413);
    expect(await converted.json()).toMatchObject({ code: "IMAGE_TOO_LARGE", message });
    const annotated = await converting(() => api.postJson("/v1/annotate?to=pdf", { document: { base64: huge.toString("base64") }, fields: [] }, key));
    expect(annotated).toMatchObject({ status: 413, json: { code: "IMAGE_TOO_LARGE", message } });
    const entities = withSvg(
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "${pathToFileURL(markers.textPath).href}">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>`,
    );
    const refused = await converting(() => convert(entities, "docx"));
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      code: "INVALID_DOCUMENT",
      message: expect.stringContaining("The DOCX part word/media/image1.svg is an SVG picture Signet does not pass on (it declares entities"),
    });
  });

  it("refuses an SVG picture over the 10 MB image limit before parsing it (413 PAYLOAD_TOO_LARGE), from a 30 KB DOCX", async () => {
    const zip = new PizZip(fixtureDocx());
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    zip.file("word/media/image1.svg", svg.replace("<rect", `<!--${" ".repeat(10 * 1024 * 1024)}--><rect`));
    const bomb = zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
    expect(bomb.length).toBeLessThan(100 * 1024);
    const converted = await converting(() => convert(bomb, "docx"));
    expect(converted.status).toBe(413);
    expect(await converted.json()).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message:
        "The DOCX part word/media/image1.svg is an SVG picture larger than the 10 MB image limit; insert it as a PNG or a smaller SVG and upload the document again.",
    });
  });

  it("refuses a 10 MB PNG declaring 60000 x 60000 with 413 IMAGE_TOO_LARGE, in convert, annotate to=pdf and sign", async () => {
    const bytes = hugePngDocx();
    const message =
      "The image word/media/image1.png is 60000 x 60000 pixels (3600 megapixels); the limit is 100 megapixels per image. Scale it down and try again.";
    const converted = await convert(bytes, "docx");
    expect(converted.status).toBe(413);
    expect(await converted.json()).toMatchObject({ code: "IMAGE_TOO_LARGE", error: "Payload Too Large", message });
    const annotated = await api.postJson("/v1/annotate?to=pdf", { document: { base64: bytes.toString("base64") }, fields: [] }, key);
    expect(annotated).toMatchObject({ status: 413, json: { code: "IMAGE_TOO_LARGE", message } });
    const signed = await api.postJson(
      "/v1/sign",
      {
        document: { base64: bytes.toString("base64") },
        signer: { name: "Ada Lovelace", email: "ada@example.com" },
        auditTrail: [{ type: "submit", timestamp: "2026-11-25T10:00:00Z" }],
      },
      key,
    );
    expect(signed).toMatchObject({ status: 413, json: { code: "IMAGE_TOO_LARGE", message } });
  });
});

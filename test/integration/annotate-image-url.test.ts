import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import { fillTemplate } from "#domain/docx/annotate.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { buildDocx, inlineControl, p, partNames, readPart } from "#test/helpers/docx-builder.ts";
import { makePng, makeSvg } from "#test/helpers/annotate-images.ts";
import { createPictures } from "#wiring/pictures.ts";
import { testContainer } from "#test/helpers/container.ts";
import { startFixtureServer, type FixtureServer } from "#test/helpers/http-fixture-server.ts";
import { loadConfig } from "#config";

/** fetchSettings are the default fetch settings (the settings table's), which each fetcher here adjusts. */
const fetchSettings = loadConfig({}).fetch;

// Image URLs go through the real safe fetcher; loopback is allowed for this test server only.
const png = makePng(80, 40);
let server: FixtureServer;
// Requests to /slow/* are counted and answered after a pause, to observe how many run at once.
const slow = { requests: [] as string[], active: 0, peak: 0 };
beforeAll(async () => {
  server = await startFixtureServer((req, res) => {
    if (req.url?.startsWith("/slow/")) {
      slow.requests.push(req.url);
      slow.peak = Math.max(slow.peak, ++slow.active);
      setTimeout(() => {
        slow.active--;
        res.writeHead(200, { "content-type": "image/png" }).end(png);
      }, 40);
    } else if (req.url === "/sig.png") res.writeHead(200, { "content-type": "image/png" }).end(png);
    // The claimed type is wrong on purpose: the bytes decide.
    else if (req.url === "/sig.svg") res.writeHead(200, { "content-type": "image/png" }).end(makeSvg());
    else if (req.url === "/big.png") res.writeHead(200, { "content-type": "image/png" }).end(Buffer.concat([png, Buffer.alloc(4096)]));
    else res.writeHead(404).end();
  });
});
afterAll(() => server.close());

const limits = {
  maxDocxEntries: 100,
  maxDocxUncompressedBytes: 10_000_000,
  maxDocxControls: 100,
  maxDocxXmlNodes: 10_000,
  maxDocxControlNodes: 10_000,
  maxImageBytes: 2048,
  maxTotalImageBytes: 1_000_000,
};
const docx = buildDocx({ body: p(inlineControl({ tag: "signature" })) });
const fill = (url: string) =>
  fillTemplate(docx, [{ id: "signature", type: "signature", value: url, options: { dimensions: { height: 20 } } }], {
    fetcher: createSafeFetcher({ ...fetchSettings, allowHttp: true, allowAddresses: ["127.0.0.1"] }),
    limits: { ...limits, maxImageBytes: url.endsWith(".svg") ? 4096 : limits.maxImageBytes },
    pictures: createPictures(testContainer().config),
  });

describe("image values by URL", () => {
  it("fetches, embeds and sizes a signature picture", async () => {
    const out = await fill(server.url("/sig.png"));
    expect(partNames(out)).toContain("word/media/signet-image-1.png");
    expect(readPart(out, "word/document.xml")).toContain(`<wp:extent cx="${40 * 9525}" cy="${20 * 9525}"/>`);
  });

  it("fetches an SVG by URL, whatever type the server claims, and embeds it with its PNG fallback", async () => {
    const out = await fill(server.url("/sig.svg"));
    expect(partNames(out)).toEqual(expect.arrayContaining(["word/media/signet-image-1.png", "word/media/signet-image-2.svg"]));
    expect(readPart(out, "word/document.xml")).toContain(`<wp:extent cx="${60 * 9525}" cy="${20 * 9525}"/>`);
  });

  it.each([
    { path: "/missing.png", code: "FETCH_FAILED" },
    { path: "/big.png", code: "PAYLOAD_TOO_LARGE" },
  ])("$path is $code", async ({ path, code }) => {
    const error = await fill(server.url(path)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignetError);
    expect((error as SignetError).code).toBe(code);
  });
});

describe("many image URLs in one call", () => {
  const count = 12;
  const manyDocx = buildDocx({ body: Array.from({ length: count }, (_, i) => p(inlineControl({ tag: `img${i}` }))).join("") });
  const fillMany = (urls: string[], maxTotalImageBytes: number) =>
    fillTemplate(
      manyDocx,
      urls.map((url, i) => ({ id: `img${i}`, type: "image" as const, value: url })),
      {
        fetcher: createSafeFetcher({ ...fetchSettings, allowHttp: true, allowAddresses: ["127.0.0.1"] }),
        limits: { ...limits, maxTotalImageBytes },
      },
    );
  const reset = () => Object.assign(slow, { requests: [], active: 0, peak: 0 });

  it("fetches distinct URLs 4 at a time and a repeated URL once", async () => {
    reset();
    const urls = Array.from({ length: count }, (_, i) => server.url(`/slow/${i % 10}.png`));
    const out = await fillMany(urls, 1_000_000);
    expect(slow.requests.toSorted()).toEqual(Array.from({ length: 10 }, (_, i) => `/slow/${i}.png`));
    expect(slow.peak).toBe(4);
    expect(readPart(out, "word/document.xml").match(/<wp:inline /g)).toHaveLength(count);
  });

  it("refuses images adding up to more than maxTotalImageBytes with 413, fetching no further", async () => {
    reset();
    // Each image is png.length bytes; the budget holds 3 of them.
    const urls = Array.from({ length: count }, (_, i) => server.url(`/slow/${i}.png`));
    const error = await fillMany(urls, png.length * 3 + 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignetError);
    expect((error as SignetError).code).toBe("PAYLOAD_TOO_LARGE");
    expect((error as SignetError).message).toContain("total image limit");
    expect((error as SignetError).details).toEqual([
      { field: expect.stringMatching(/^fields\.\d+\.value$/), issue: expect.stringContaining("total image budget") },
    ]);
    expect(slow.requests.length).toBeLessThanOrEqual(4);
  });

  it("counts data URIs against the same budget", async () => {
    const uri = `data:image/png;base64,${png.toString("base64")}`;
    const other = `data:image/png;base64,${makePng(81, 40).toString("base64")}`;
    const error = await fillMany([uri, uri, other], png.length + 10).catch((e: unknown) => e);
    expect((error as SignetError).code).toBe("PAYLOAD_TOO_LARGE");
    expect((error as SignetError).details).toEqual([{ field: "fields.2.value", issue: expect.stringContaining("total image budget") }]);
  });
});

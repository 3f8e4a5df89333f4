import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import { fillTemplate } from "#domain/docx/annotate.ts";
import { SignetError } from "#domain/errors.ts";
import { buildDocx, inlineControl, p, partNames, readPart } from "#test/helpers/docx-builder.ts";
import { makePng } from "#test/helpers/annotate-images.ts";
import { startFixtureServer, type FixtureServer } from "#test/helpers/http-fixture-server.ts";

// Image URLs go through the real safe fetcher; loopback is allowed for this test server only.
const png = makePng(80, 40);
let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer((req, res) => {
    if (req.url === "/sig.png") res.writeHead(200, { "content-type": "image/png" }).end(png);
    else if (req.url === "/big.png") res.writeHead(200, { "content-type": "image/png" }).end(Buffer.concat([png, Buffer.alloc(4096)]));
    else res.writeHead(404).end();
  });
});
afterAll(() => server.close());

const limits = { maxDocxEntries: 100, maxDocxUncompressedBytes: 10_000_000, maxImageBytes: 2048 };
const docx = buildDocx({ body: p(inlineControl({ tag: "signature" })) });
const fill = (url: string) =>
  fillTemplate(docx, [{ id: "signature", type: "signature", value: url, options: { dimensions: { height: 20 } } }], {
    fetcher: createSafeFetcher({ allowHttp: true, allowAddresses: ["127.0.0.1"] }),
    limits,
  });

describe("image values by URL", () => {
  it("fetches, embeds and sizes a signature picture", async () => {
    const out = await fill(server.url("/sig.png"));
    expect(partNames(out)).toContain("word/media/signet-image-1.png");
    expect(readPart(out, "word/document.xml")).toContain(`<wp:extent cx="${40 * 9525}" cy="${20 * 9525}"/>`);
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

// The PDF tools against hostile input (issue 40, item 7), through the local server: the verify
// attack suite's files (test/helpers/pdf-attacks/) through merge, split and pages answer a clean
// 4xx or a PDF qpdf accepts, never a 500 or a dead server; and the health route answers while a
// 9,000-page merge copies its pages (the merge hands the event loop back between pages).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hugePdf } from "#test/helpers/huge-pdf.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import * as attack from "#test/helpers/pdf-attacks/revisions.ts";
import { pdfPageCount, qpdfCheck } from "#test/helpers/pdf-tools.ts";
import { toolPdf } from "#test/helpers/tool-pdfs.ts";

let api: LocalApi;
let key: string;
let plain: Buffer;
// The documents the server's fetcher serves by URL (an in-process port fake: no I/O of its own).
const documents = new Map<string, () => Buffer>();
const served = (url: string): Buffer => {
  const make = documents.get(url);
  if (!make) throw new Error(`no document at ${url}`);
  return make();
};

beforeAll(async () => {
  api = await startLocalApi(
    "pdf-tools-hostile",
    { SIGNET_TABLE: "signet-pdf-tools-hostile", SIGNET_SOFFICE: "/nonexistent/soffice" },
    { overrides: { safeFetcher: { fetch: async (url) => ({ bytes: served(url), contentType: "application/pdf" }) } } },
  );
  key = await obtainKey(api, "pdf-tools-hostile");
  plain = await toolPdf("Plain", 1);
}, 180_000);

afterAll(async () => {
  await api?.close();
});

const b64 = (bytes: Buffer) => ({ base64: bytes.toString("base64") });

/** hostileFiles are the attack suite's revisions, on unsigned contracts (the tools read what a signer would be shown). */
async function hostileFiles(): Promise<Array<[string, Buffer]>> {
  const shadow = await attack.inspect(await attack.contractPdf({ shadow: true }));
  const dangling = await attack.inspect(await attack.contractPdf({ danglingAnnot: 900, danglingContents: 901 }));
  const loop = hugePdf(3).toString("latin1").replace("/Kids [4 0 R]", "/Kids [4 0 R 2 0 R]");
  return [
    ["a decoy /Root before the real key", attack.decoyKey(shadow, "Root", "table")],
    ["a decoy /Prev in an xref stream", attack.decoyKey(shadow, "Prev", "stream")],
    ["a generation change", attack.generationChange(shadow)],
    ["a dangling annotation defined later", attack.danglingAnnot(dangling)],
    ["dangling contents defined later", attack.danglingContents(dangling)],
    ["shadow objects replacing the page", attack.shadowReplace(shadow)],
    ["a new catalog", attack.newCatalog(shadow)],
    ["an object stream redefinition", attack.objectStreamRedefinition(shadow)],
    ["an object twice in one section", attack.duplicateInSection(shadow)],
    ["a /Prev loop", attack.prevLoop(shadow)],
    ["/W [0 0 0] with /Index [1 10000000]", attack.zeroWidthEntries(shadow, 10_000_000)],
    ["an xref stream inflating to 300 MB", attack.inflateBomb(shadow, 300)],
    ["an object stream inflating to 300 MB", attack.objectStreamBomb(shadow, 300)],
    ["a page tree that contains itself", Buffer.from(loop, "latin1")],
    ["truncated in the middle", shadow.bytes.subarray(0, Math.floor(shadow.bytes.length / 2))],
  ];
}

describe("hostile PDFs through merge, split and pages", () => {
  it("answer a 4xx naming the problem or a PDF qpdf accepts; never a 500", async () => {
    const outcomes: string[] = [];
    for (const [name, file] of await hostileFiles()) {
      const calls: Array<[string, unknown]> = [
        ["/v1/merge", { documents: [{ document: b64(plain) }, { document: b64(file) }] }],
        ["/v1/split", { document: b64(file), every: 1 }],
        ["/v1/pages", { document: b64(file), operations: [{ op: "rotate", pages: "1", degrees: 90 }] }],
      ];
      for (const [path, body] of calls) {
        const response = await fetch(`${api.url}${path}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        expect(response.status, `${name} ${path}: ${bytes.subarray(0, 300).toString()}`).toBeLessThan(500);
        if (response.status >= 400) {
          expect(JSON.parse(bytes.toString()).code, `${name} ${path}`).toMatch(/^(INVALID_DOCUMENT|PAYLOAD_TOO_LARGE|ENCRYPTED_DOCUMENT)$/);
        } else if (path !== "/v1/split") {
          const pdf = Buffer.from(JSON.parse(bytes.toString()).document.base64, "base64");
          expect((await qpdfCheck(pdf)).ok, `${name} ${path}`).toBe(true);
        }
        outcomes.push(`${name} ${path} ${response.status}`);
      }
    }
    expect(outcomes).toHaveLength(45);
    expect((await fetch(`${api.url}/v1/verify/key`)).status).toBe(200);
  }, 300_000);
});

describe("the event loop during a large merge", () => {
  // The window is the first input's work: from the moment the fetcher handed its bytes over to the
  // moment the merge asks for the second input. Nothing in between waits for I/O (parse, guard,
  // page copy), so the event loop turns inside it only where the merge hands it back (TimeSlice
  // pauses in the page copy). A probe counts those turns (a setImmediate ticker armed at the
  // window's start, stopped at its end): without the pauses it counts 0 on any machine, however
  // fast or loaded, and no time limit is guessed. Health requests run meanwhile, as a client's would.
  it("the event loop turns (and health is served) while the first input's pages are copied, in the window the fetcher marks", async () => {
    const pages = 9000;
    let turns = 0;
    let inWindow = false;
    const tick = () => {
      if (!inWindow) return;
      turns++;
      setImmediate(tick);
    };
    let window: { start?: number; end?: number } = {};
    let healthAnswers = 0;
    documents.set("https://documents.test/large.pdf", () => {
      window = { start: healthAnswers };
      inWindow = true;
      setImmediate(tick);
      return hugePdf(pages);
    });
    documents.set("https://documents.test/small.pdf", () => {
      window.end = healthAnswers;
      inWindow = false;
      return plain;
    });
    let mergeDone = false;
    const merge = api
      .postJson(
        "/v1/merge",
        { documents: [{ document: { url: "https://documents.test/large.pdf" } }, { document: { url: "https://documents.test/small.pdf" } }] },
        key,
      )
      .finally(() => {
        mergeDone = true;
      });
    while (!mergeDone) {
      const health = await fetch(`${api.url}/v1/health`);
      await health.arrayBuffer();
      healthAnswers++;
    }
    const { status, json } = await merge;
    expect(status, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(await pdfPageCount(Buffer.from(json.document.base64 as string, "base64"))).toBe(pages + 1);
    expect(window.start, "the fetcher served the large input").toBeDefined();
    expect(window.end, "the fetcher served the small input").toBeDefined();
    // Each pause is one turn: 6 for 9,000 pages here at load 7 (placing the pages, the
    // parse and the save are not sliced; the copy is). One is what a merge without pauses cannot give.
    expect(turns, `event-loop turns in the window (health answered ${window.end! - window.start!} times in it)`).toBeGreaterThan(0);
  }, 180_000);
});

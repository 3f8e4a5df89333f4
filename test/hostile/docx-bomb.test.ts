// A small DOCX of tiny content controls held the event loop for 20 s and took
// 3.7 GB. Through the local server: the bombs are refused with 413 naming the limit, and the
// heaviest documents the default limits allow are answered. (Time and memory: npm run bench:docx-bomb.)
import PizZip from "pizzip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeZip } from "#domain/shared/zip-container.ts";
import { buildDocx, inlineControl, p, readPart } from "#test/helpers/docx-builder.ts";
import { nodeBomb, sdtBomb, worstControls, worstNested, worstPlaceholders } from "#test/helpers/docx-bomb.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;
let key: string;
let limits: { maxDocxControls: number; maxDocxXmlNodes: number; maxDocxControlNodes: number; maxFields: number };

beforeAll(async () => {
  api = await startLocalApi("docx-bomb", { SIGNET_TABLE: "signet-docx-bomb", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "docx-bomb");
  limits = api.container.config.limits;
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const post = (path: string, body: unknown) => api.postJson(path, body, key);
const documentOf = (bytes: Buffer) => ({ base64: bytes.toString("base64") });
const DOCX_PREFIX = "data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,";

describe("XML budget of a DOCX (annotate, annotate/fields)", () => {
  it("refuses the 40 MB-of-w:sdt bomb (about 150 KB zipped) with 413 naming the control limit", async () => {
    const bomb = sdtBomb();
    expect(bomb.length).toBeLessThan(200 * 1024);
    for (const [path, extra] of [
      ["/v1/annotate/fields", {}],
      ["/v1/annotate", { fields: [{ id: "x", type: "text", value: "v" }] }],
    ] as const) {
      const { status, json } = await post(path, { document: documentOf(bomb), ...extra });
      expect(status, path).toBe(413);
      expect(json.code).toBe("PAYLOAD_TOO_LARGE");
      expect(json.message).toContain(`more than ${limits.maxDocxControls} content controls`);
    }
  });

  it("refuses 40 MB of empty runs with 413 naming the XML element limit", async () => {
    const { status, json } = await post("/v1/annotate/fields", { document: documentOf(nodeBomb()) });
    expect(status).toBe(413);
    expect(json.code).toBe("PAYLOAD_TOO_LARGE");
    expect(json.message).toContain(`more than ${limits.maxDocxXmlNodes} XML elements`);
  });

  it("lists and fills the document with the most controls and elements the limits allow", async () => {
    const docx = worstControls(limits);
    const listed = await post("/v1/annotate/fields", { document: documentOf(docx) });
    expect(listed.status).toBe(200);
    const count = listed.json.fields.length as number;
    expect(count).toBeGreaterThan(1000);
    const fields = Array.from({ length: Math.min(count, limits.maxFields) }, (_, i) => ({ id: `c${i}`, type: "text", value: `value ${i}` }));
    const filled = await post("/v1/annotate", { document: documentOf(docx), fields });
    expect(filled.status).toBe(200);
    const xml = readPart(Buffer.from(filled.json.document.base64.slice(DOCX_PREFIX.length), "base64"), "word/document.xml");
    expect(xml).toContain(`value ${fields.length - 1}<`);
  });

  it("fills the largest control and a {{placeholder}} in a document at the element limit", async () => {
    const nested = await post("/v1/annotate", { document: documentOf(worstNested(limits)), fields: [{ id: "all", type: "text", value: "everything" }] });
    expect(nested.status).toBe(200);
    const placeholders = await post("/v1/annotate", { document: documentOf(worstPlaceholders(limits)), fields: [{ id: "name", type: "text", value: "Ada" }] });
    expect(placeholders.status).toBe(200);
    const xml = readPart(Buffer.from(placeholders.json.document.base64.slice(DOCX_PREFIX.length), "base64"), "word/document.xml");
    expect(xml).toContain("Dear Ada,");
  });
});

// Annotate passed zip entry names such as ../../x into the DOCX it returned.
describe("zip entry names (annotate)", () => {
  const withEntry = async (name: string) => {
    const zip = new PizZip(buildDocx({ body: p(inlineControl({ tag: "name" })) }));
    const entries = Object.values(zip.files).map((file) => ({ name: file.name, data: Buffer.from(file.asUint8Array()) }));
    return writeZip([...entries, { name, data: Buffer.from("payload") }]);
  };

  it.each(["../../x", "word/../../x", "/tmp/x", "C:\\x", "C:/x", "word\\x.xml", "a\u0000.xml", "./x", "word/media/../../../etc/x"])(
    "refuses an entry named %j with 422 INVALID_DOCUMENT naming it",
    async (name) => {
      const document = documentOf(await withEntry(name));
      for (const [path, extra] of [
        ["/v1/annotate", { fields: [{ id: "name", type: "text", value: "v" }] }],
        ["/v1/annotate/fields", {}],
      ] as const) {
        const { status, json } = await post(path, { document, ...extra });
        expect(status, path).toBe(422);
        expect(json.code).toBe("INVALID_DOCUMENT");
        expect(json.message).toContain(JSON.stringify(name));
      }
    },
  );

  it("refuses two entries of the same name, and still fills a package with ordinary extra entries", async () => {
    const duplicate = await post("/v1/annotate/fields", { document: documentOf(await withEntry("word/document.xml")) });
    expect(duplicate.status).toBe(422);
    expect(duplicate.json.message).toContain('"word/document.xml", which appears twice');
    const fine = await post("/v1/annotate", {
      document: documentOf(await withEntry("customXml/item1.xml")),
      fields: [{ id: "name", type: "text", value: "v" }],
    });
    expect(fine.status).toBe(200);
  });
});

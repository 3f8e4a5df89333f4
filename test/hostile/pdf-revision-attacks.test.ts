// /v1/verify against an attacker who writes the incremental updates. Documents
// are signed by Signet through the local server (certificate page on); the generator in
// test/helpers/pdf-attacks/revisions.ts appends the attack; verify answers over HTTP. Each attack
// must be `valid: false` with a reason naming the change, and strict pyHanko must refuse it too
// (or the deliberate difference is recorded). Honest updates by Signet, pyHanko and libpdf stay
// valid. Cost: npm run bench:verify.
import { makeLargePdf } from "#test/helpers/large-docs.ts";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PDF, PdfBool, type PdfRef, PdfString } from "@libpdf/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERIFY_LIMITS } from "#domain/pdf/verify-limits.ts";
import * as attack from "#test/helpers/pdf-attacks/revisions.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { hasMutool, MUTOOL_MISSING, mutoolText, pdfText } from "#test/helpers/pdf-tools.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { testPki } from "#test/helpers/pki/test-pki.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { runPyhanko } from "#test/helpers/pyhanko.ts";
import { expectPyhanko, type PyhankoExpectation } from "#test/helpers/signature-checks.ts";

let api: LocalApi;
let key: string;
/** A Signet-signed contract with shadow objects (unreferenced) and a hidden overlay annotation. */
let signed: attack.Target;
/** A Signet-signed contract whose page has a dangling /Annots and /Contents element (no such objects). */
let dangling: attack.Target;
/** A plain Signet-signed contract, for the honest updates. */
let clean: attack.Target;
/** A Signet-signed contract hiding a forged cross-reference section in an unreferenced stream. */
let forged: attack.Target;

const signBody = (pdf: Buffer) => ({
  document: { base64: pdf.toString("base64") },
  signer: { name: "Bob Approver", email: "bob@example.com" },
  auditTrail: [
    { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
    { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
  ],
});

async function signWithSignet(pdf: Buffer): Promise<Buffer> {
  let answer: Awaited<ReturnType<LocalApi["postJson"]>>;
  try {
    answer = await api.postJson("/v1/sign", signBody(pdf), key);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw error;
    answer = await api.postJson("/v1/sign", signBody(pdf), key);
  }
  const { status, json } = answer;
  expect(status, JSON.stringify(json)).toBe(200);
  return Buffer.from(json.document.base64 as string, "base64");
}

async function verify(pdf: Buffer): Promise<{ status: number; json: Record<string, any> }> {
  const body = { document: { base64: pdf.toString("base64") } };
  try {
    return await api.postJson("/v1/verify", body);
  } catch (error) {
    // A keep-alive connection the server closed while pyHanko ran (ECONNRESET): verify is idempotent, ask once more.
    if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw error;
    return api.postJson("/v1/verify", body);
  }
}

/** PYHANKO_TIMEOUT_MS bounds one validation: pyHanko 0.20.1 loops forever on a /Prev that points at its own section. */
const PYHANKO_TIMEOUT_MS = 30_000;

/** pyhanko runs the strict validator and checks its outcome: a verdict, or the no-verdict recorded for the case. */
function pyhanko(pdf: Buffer, expected: PyhankoExpectation = "refuses"): void {
  expectPyhanko(pdf, expected, { timeoutMs: PYHANKO_TIMEOUT_MS });
}

function pyhankoUpdate(mode: "xmp" | "dss", pdf: Buffer, ...certs: string[]): Buffer {
  const dir = scratchDir("pyhanko-update");
  writeFileSync(join(dir, "in.pdf"), pdf);
  const run = runPyhanko("pyhanko-update.py", [mode, join(dir, "in.pdf"), join(dir, "out.pdf"), ...certs]);
  if (run.status !== 0) throw new Error(`pyHanko update failed: ${run.stderr}`);
  return execFileSync("cat", [join(dir, "out.pdf")], { maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(async () => {
  api = await startLocalApi("pdf-revision-attacks", { SIGNET_TABLE: "signet-pdf-revision-attacks", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "attacks");
  signed = await attack.inspect(await signWithSignet(await attack.contractPdf({ shadow: true })));
  dangling = await attack.inspect(await signWithSignet(await attack.contractPdf({ danglingAnnot: 900, danglingContents: 901 })));
  clean = await attack.inspect(await signWithSignet(await attack.contractPdf()));
  forged = await attack.inspect(await signWithSignet(await attack.contractPdf({ forgedSection: true })));
}, 120_000);

afterAll(async () => {
  await api?.close();
});

/** Attack is one adversarial file: how to build it, what verify must name, and which reader shows the forgery. */
interface Attack {
  build: () => Buffer | Promise<Buffer>;
  /** The reason of verify's `valid: false` (200), or, for a file libpdf cannot open, the 422's message. */
  reason: RegExp;
  /** Verify answers 422 INVALID_DOCUMENT (libpdf cannot open the file) rather than 200 `valid: false`. */
  unreadable?: true;
  /** A reader that draws FORGED_TEXT from this file (evidence the attack is real). */
  shows?: "poppler" | "mupdf";
  /** What pyHanko gives (default: a verdict that the signature does not hold). */
  pyhanko?: PyhankoExpectation;
}

/** PYHANKO_DANGLING: the signed revision of case 4 refers to objects it does not define; pyHanko's strict reader stops there. */
const PYHANKO_DANGLING: PyhankoExpectation = {
  noVerdict: /^PdfStrictReadError: Object addressed by Reference\(idnum=900, generation=0\) not found/,
  why: "the signed revision itself refers to object 900, which it does not define (the premise of case 4): pyHanko's strict reader stops at that reference while validating, before any diff analysis",
};
/** PYHANKO_GENERATION: case 3 raises a generation without freeing the object first, which pyHanko's strict reader refuses as it reads. */
const PYHANKO_GENERATION: PyhankoExpectation = {
  noVerdict: /^PdfStrictReadError: Object with id \d+ has an orphaned generation/,
  why: "pyHanko's strict reader refuses generation 1 of an object not freed at generation 0 (an orphaned generation) while reading the file, before judging any signature",
};

const changed = (what: RegExp | string) =>
  new RegExp(`changed after signature .* beyond what it permits \\(other: .*${typeof what === "string" ? what : what.source}`);

const attacks: Record<string, Attack> = {
  // Case 1: decoy keys inside a string before the real key (every key, in xref streams and trailers).
  ...Object.fromEntries(
    (["Index", "W", "Prev", "Size", "Root", "XRefStm"] as const).flatMap((name) =>
      (["stream", "table"] as const).map((xref) => [
        `case 1: a decoy /${name} in the ${xref === "stream" ? "xref stream dictionary" : "trailer"}`,
        {
          build: () => attack.decoyKey(signed, name, xref),
          reason: changed("unexplained changes: object \\d+ \\(a stream\\)"),
          shows: "poppler",
        } satisfies Attack,
      ]),
    ),
  ),
  // Case 3: `n 1 obj` for the page content `n 0 R`.
  "case 3: the page content redefined with generation 1 (table)": {
    build: () => attack.generationChange(signed),
    reason: changed("redefines object \\d+ with generation 1 \\(it was 0\\)"),
    shows: "mupdf",
    pyhanko: PYHANKO_GENERATION,
  },
  "case 3: the page content redefined with generation 1 (xref stream)": {
    build: () => attack.generationChange(signed, "stream"),
    reason: changed("redefines object \\d+ with generation 1"),
    pyhanko: PYHANKO_GENERATION,
  },
  // Case 4: a dangling reference of the signed revision, defined later.
  "case 4: the dangling /Annots [900 0 R] defined as a stamp": {
    build: () => attack.danglingAnnot(dangling),
    reason: changed("object 900 \\(a Annot object\\) is new, but object \\d+ \\(a Page object\\) of the signed revision already referred to it"),
    shows: "poppler",
    pyhanko: PYHANKO_DANGLING,
  },
  "case 4: the dangling /Annots element defined, through an xref stream": {
    build: () => attack.danglingAnnot(dangling, 900, "stream"),
    reason: changed("object 900 .* already referred to it"),
    pyhanko: PYHANKO_DANGLING,
  },
  "case 4: the dangling second /Contents element defined": {
    build: () => attack.danglingContents(dangling),
    reason: changed("object 901 \\(a stream\\) is new, but object \\d+ \\(a Page object\\) of the signed revision already referred to it"),
    shows: "poppler",
    pyhanko: PYHANKO_DANGLING,
  },
  // PDF Insecurity classes on the revision side.
  "incremental saving attack: the content stream replaced (honest table)": {
    build: () => attack.replaceContent(signed),
    reason: changed("unexplained changes: object \\d+ \\(a stream\\)"),
    shows: "poppler",
  },
  "incremental saving attack: objects after the last %%EOF, no cross-reference section": {
    build: () => attack.trailingObjects(signed),
    reason: changed("objects follow the last %%EOF"),
    pyhanko: {
      holds:
        "pyHanko reads the file as it was signed and ignores trailing bytes (it holds); Signet refuses them because a repairing reader (poppler, MuPDF on a damaged file) may use them",
    },
  },
  "shadow replace: /Contents pointed at a shadow stream of the signed revision": {
    build: () => attack.shadowReplace(signed),
    reason: changed("unexplained changes: object \\d+ \\(a Page object\\)"),
    shows: "poppler",
  },
  "shadow hide: a hidden overlay of the signed revision made visible": {
    build: () => attack.shadowHide(signed),
    reason: changed("unexplained changes: object \\d+ \\(a Annot object\\)"),
  },
  "shadow hide-and-replace: the catalog's /Pages pointed at a shadow page tree": {
    build: () => attack.shadowHideAndReplace(signed, "pages"),
    reason: changed("the document catalog's /Pages changed"),
    shows: "poppler",
  },
  "shadow hide-and-replace: a new catalog over the shadow page tree": {
    build: () => attack.newCatalog(signed),
    reason: changed("the document catalog's /Pages changed"),
    shows: "poppler",
  },
  "object-stream redefinition: the page redefined inside a new object stream": {
    build: () => attack.objectStreamRedefinition(signed),
    reason: changed("unexplained changes: object \\d+ \\(a Page object\\)"),
    shows: "poppler",
  },
  "an object defined twice in one cross-reference table": {
    build: () => attack.duplicateInSection(signed),
    reason: changed("defines object \\d+ twice"),
  },
  "a /Prev that loops back to its own section": {
    build: () => attack.prevLoop(signed),
    // libpdf cannot open it: 422 with the damaged-file message; strict pyHanko never finishes.
    unreadable: true,
    reason: /^The PDF could not be read; it looks damaged\. Open and re-save it, then send it again\.$/,
    pyhanko: { timesOut: "pyHanko 0.20.1 follows the /Prev back to the same section forever (killed after 30 s): no verdict" },
  },
  "a /Prev into the middle of the signed bytes (a forged section hidden in a stream)": {
    build: () => attack.prevIntoSignedBytes(forged),
    reason: /not where revision \d+'s startxref|has no signatures/,
    shows: "poppler",
    pyhanko: {
      noVerdict: /^ValueError: invalid literal for int\(\) with base 10: ''/,
      why: "pyHanko follows the /Prev into the signed bytes and fails to parse the section hidden in a stream there (invalid literal for int()): no verdict",
    },
  },
};

// The tests below run pyHanko (synchronously, up to PYHANKO_TIMEOUT_MS each) beside Signet's own
// verify: at nice 10 beside three CPU burners the longest took 43 s of the default 60 s.
describe("attacks on the revisions after a Signet signature", { timeout: 180_000 }, () => {
  it("the signed documents themselves verify (shadow objects, a forged section in a stream, dangling references)", async () => {
    for (const target of [signed, forged, dangling]) {
      const { status, json } = await verify(target.bytes);
      expect(status).toBe(200);
      expect(json.valid, json.reason).toBe(true);
    }
    for (const target of [signed, forged, dangling]) pyhanko(target.bytes, { holds: "a signed document holds" });
  });

  it.each(Object.keys(attacks))("%s", async (name) => {
    const spec = attacks[name]!;
    const file = await spec.build();
    if (spec.shows === "poppler") expect((await pdfText(file)).replace(/\s+/g, " ")).toContain(attack.FORGED_TEXT);
    if (spec.shows === "mupdf") expect(hasMutool, MUTOOL_MISSING).toBe(true);
    if (spec.shows === "mupdf") expect((await mutoolText(file)).replace(/\s+/g, " ")).toContain(attack.FORGED_TEXT);
    const { status, json } = await verify(file);
    if (spec.unreadable) {
      // libpdf cannot open the file at all: never valid either, and the answer says why.
      expect(status, JSON.stringify(json)).toBe(422);
      expect(json.code).toBe("INVALID_DOCUMENT");
      expect(json.message).toMatch(spec.reason);
    } else {
      expect(status, JSON.stringify(json)).toBe(200);
      expect(json.valid, json.reason).toBe(false);
      expect(json.reason).toMatch(spec.reason);
    }
    pyhanko(file, spec.pyhanko);
  });

  it("case 4 under a DocMDP P=1 certification: the dangling annotation defined later", async () => {
    const certified = signWithPyhanko(await attack.contractPdf({ danglingAnnot: 900 }), { certify: 1 });
    const target = await attack.inspect(certified);
    expect((await verify(certified)).json.valid).toBe(true);
    const file = attack.danglingAnnot(target);
    expect((await pdfText(file)).replace(/\s+/g, " ")).toContain(attack.FORGED_TEXT);
    const { json } = await verify(file);
    expect(json.valid).toBe(false);
    expect(json.reason).toMatch(changed("object 900 .* already referred to it"));
    pyhanko(file, PYHANKO_DANGLING);
  });
});

describe("bounded work (case 5): answered 422 naming the limit", () => {
  const limits = DEFAULT_VERIFY_LIMITS;

  it.each([
    ["/W [0 0 0] with /Index [1 10000000]", () => attack.zeroWidthEntries(signed, 10_000_000), /no offset field/],
    ["/W [0 0 0] with /Index [1 10000000] behind a decoy", () => attack.zeroWidthEntries(signed, 10_000_000, true), /no offset field/],
    ["an xref stream of 300 MB zeros (about 300 KB deflated)", () => attack.inflateBomb(signed, 300), /inflate to more than 64 MB/],
    ["an object stream of 300 MB zeros", () => attack.objectStreamBomb(signed, 300), /inflate to more than 64 MB/],
    [`${limits.maxRevisions} updates after the signature`, () => attack.manyUpdates(signed, limits.maxRevisions), /more than 1000 incremental updates/],
  ] as const)("%s", async (_name, build, message) => {
    const { status, json } = await verify(await build());
    expect(status, JSON.stringify(json)).toBe(422);
    expect(json.code).toBe("INVALID_DOCUMENT");
    expect(json.message).toMatch(message);
    expect(json.details?.[0]?.field).toBe("document");
  });

  it("the most updates allowed are read once each and verify (Signet's update and 999 more)", async () => {
    const file = await attack.manyUpdates(signed, limits.maxRevisions - 1);
    const { status, json } = await verify(file);
    expect(status).toBe(200);
    expect(json.valid, json.reason).toBe(true);
    expect(json.signatures[0].modificationLevel).toBe("lta");
  });

  it("GET /v1/health answers while a hostile verify runs (verify runs off the event loop)", { timeout: 300_000 }, async () => {
    // A verify that takes a while: a 4 MB signed document with the most updates allowed.
    const big = await attack.inspect(await signWithSignet(await makeLargePdf(4 * 1024 * 1024)));
    const file = await attack.manyUpdates(big, limits.maxRevisions - 1);
    // Health is asked again and again while verify runs. Were verify on the event loop, no health
    // answer could ever come back before verify's own; off it, one does unless the machine is so
    // busy that receiving the body outlasts the analysis, so up to five verifies are tried (no time
    // is asserted, only the order).
    let answeredDuring = 0;
    for (let attempt = 0; attempt < 5 && answeredDuring === 0; attempt++) {
      let done = false;
      const running = verify(file).then((answer) => {
        done = true;
        return answer;
      });
      while (!done) {
        const health = await fetch(`${api.url}/v1/health`);
        expect(health.status).toBe(200);
        await health.arrayBuffer();
        if (!done) answeredDuring++;
      }
      expect((await running).status).toBe(200);
    }
    expect(answeredDuring).toBeGreaterThan(0);
  });
});

describe("honest updates stay valid (and pyHanko agrees)", { timeout: 180_000 }, () => {
  const honest: Record<string, () => Promise<Buffer>> = {
    "a second Signet signature": async () => signWithSignet(clean.bytes),
    "a pyHanko signature on Signet's": async () => signWithPyhanko(clean.bytes),
    "document information changed (libpdf)": async () => {
      const doc = await PDF.load(clean.bytes);
      doc.setTitle("Renamed after signing");
      return Buffer.from(await doc.save({ incremental: true }));
    },
    "a DSS added, then grown in place (pyHanko's indirect arrays, PAdES-LTA style)": async () => {
      const pem = testPki().certificatePath("dss-test");
      const other = testPki().certificatePath("dss-other");
      return pyhankoUpdate("dss", pyhankoUpdate("dss", clean.bytes, pem), other);
    },
    "an XMP metadata stream rewritten in place between two pyHanko signatures": async () => {
      const first = signWithPyhanko(pyhankoUpdate("xmp", await attack.contractPdf()), { field: "First" });
      return signWithPyhanko(pyhankoUpdate("xmp", first), { field: "Second" });
    },
    "a pre-existing form field filled under DocMDP P=2": async () => {
      const certified = signWithPyhanko(await attack.contractPdf(), { certify: 2 });
      const doc = await PDF.load(certified);
      doc.getForm()!.getTextField("name")!.getDict().set("V", PdfString.fromString("Grace Hopper"));
      doc
        .getCatalog()
        .getDict("AcroForm", (ref: PdfRef) => doc.getObject(ref))!
        .set("NeedAppearances", PdfBool.of(true));
      return Buffer.from(await doc.save({ incremental: true }));
    },
  };

  it.each(Object.keys(honest))("%s", async (name) => {
    const file = await honest[name]!();
    const { status, json } = await verify(file);
    expect(status).toBe(200);
    expect(json.valid, json.reason).toBe(true);
    pyhanko(file, { holds: "an honest update" });
  });
});

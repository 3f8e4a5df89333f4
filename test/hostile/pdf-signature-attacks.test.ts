// A signature is only its own bytes. Adversarial PDFs built (test/helpers/
// pdf-attacks/signatures.ts) from documents Signet signed through the real handler, posted to
// /v1/verify on the local server; where pyHanko (strict) can judge a file, it must agree.
import { writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PdfArray, PdfNumber, PdfString } from "@libpdf/core";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { generateIdentity } from "#domain/signing/signing-identity.ts";
import {
  borrowSignature,
  directSignature,
  forgedField,
  insertAfterGap,
  pdfDate,
  redefineSignature,
  replaceGap,
  signatureParts,
  universalForgeries,
  widenGap,
  withoutCertificates,
} from "#test/helpers/pdf-attacks/signatures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { expectPyhanko, type PyhankoExpectation, pyhankoValidate } from "#test/helpers/signature-checks.ts";

let api: LocalApi;
let key: string;
let input: Buffer;
let signed: Buffer;
let otherSigned: Buffer;
let service: { fingerprint: string; rootPem: string };

type Report = Record<string, any>;

const signBody = (pdf: Buffer, name: string) => ({
  document: { base64: pdf.toString("base64") },
  signer: { name, email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
});

/**
 * post sends a JSON body on a new connection each time: pyHanko runs for seconds between calls,
 * and a kept-alive socket the server closes meanwhile would fail the next request (ECONNRESET).
 */
function post(path: string, body: unknown, bearer?: string): Promise<{ status: number; json: Report }> {
  const data = Buffer.from(JSON.stringify(body));
  const headers = { "content-type": "application/json", "content-length": String(data.length), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
  return new Promise((resolve, reject) => {
    const request = http.request(`${api.url}${path}`, { method: "POST", agent: false, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Report }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(data);
  });
}

async function signThroughHandler(pdf: Buffer, name = "Ada Lovelace"): Promise<Buffer> {
  const { status, json } = await post("/v1/sign", signBody(pdf, name), key);
  expect(status, JSON.stringify(json)).toBe(200);
  return Buffer.from(json.document.base64 as string, "base64");
}

/** verify posts a PDF to /v1/verify: never a 500, always a report. */
async function verify(pdf: Buffer): Promise<Report> {
  const { status, json } = await post("/v1/verify", { document: { base64: pdf.toString("base64") } });
  expect(status, JSON.stringify(json)).toBe(200);
  return json;
}

beforeAll(async () => {
  api = await startLocalApi("signature-attacks", { SIGNET_TABLE: "signet-signature-attacks", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "attacks");
  // A classic cross-reference table: pyHanko can then read every update libpdf appends.
  input = await makePdf(2, { classicXref: true });
  signed = await signThroughHandler(input);
  otherSigned = await signThroughHandler(await makePdf(1, { classicXref: true }), "Someone Else");
  const published = (await (await fetch(`${api.url}/v1/verify/key`)).json()) as { fingerprint: string; rootCertificate: string };
  const rootPem = join(scratchDir("attacks-root"), "root.pem");
  writeFileSync(rootPem, published.rootCertificate);
  service = { fingerprint: published.fingerprint, rootPem };
}, 180_000);

afterAll(async () => {
  await api?.close();
});

describe("legitimate documents stay valid", () => {
  it("one Signet signature: valid and trusted; pyHanko agrees, trusting Signet's root", async () => {
    const report = await verify(signed);
    expect(report).toMatchObject({ valid: true, trusted: true });
    expect(report.signatures[0]).toMatchObject({ integrity: "ok", trusted: true, signerName: "Ada Lovelace", fingerprint: service.fingerprint });
    const theirs = pyhankoValidate(signed, [service.rootPem]);
    expect(theirs.allHold, theirs.output).toBe(true);
    expect(theirs.signatures[0]!.trusted).toBe(true);
  });

  it("a second Signet signature on a signed file: both valid and trusted; pyHanko agrees", async () => {
    const twice = await signThroughHandler(signed, "Grace Hopper");
    const report = await verify(twice);
    expect(report).toMatchObject({ valid: true, trusted: true });
    expect(report.signatures.map((signature: Report) => [signature.signerName, signature.integrity, signature.trusted])).toEqual([
      ["Ada Lovelace", "ok", true],
      ["Grace Hopper", "ok", true],
    ]);
    expect(pyhankoValidate(twice, [service.rootPem]).allHold).toBe(true);
  });

  it("a second Signet signature whose dictionary carries a large audit record after /Contents: valid and trusted", async () => {
    const events = Array.from({ length: 3000 }, (_, index) => ({
      type: "field_change",
      timestamp: "2026-11-22T09:57:00Z",
      data: { field: `clause-${index}`, value: "agreed to the terms of this clause" },
    }));
    const body = { ...signBody(signed, "Grace Hopper"), auditTrail: [...events, { type: "submit", timestamp: "2026-11-22T09:58:00Z" }] };
    const { status, json } = await post("/v1/sign", body, key);
    expect(status, JSON.stringify(json)).toBe(200);
    const twice = Buffer.from(json.document.base64 as string, "base64");
    const { gap } = signatureParts(twice, "last");
    expect(twice.indexOf("/Signet_AuditRecord", gap[1]) - gap[1], "the record follows /Contents").toBeGreaterThan(0);
    expect(twice.length - gap[1], "and is large").toBeGreaterThan(256 * 1024);
    expect(await verify(twice)).toMatchObject({ valid: true, trusted: true });
  });

  it("a pyHanko signature on top: valid, but not trusted (its root is not configured); pyHanko agrees on validity", async () => {
    const onTop = signWithPyhanko(signed);
    const report = await verify(onTop);
    expect(report).toMatchObject({ valid: true, trusted: false });
    expect(report.signatures.map((signature: Report) => [signature.integrity, signature.trusted])).toEqual([
      ["ok", true],
      ["ok", false],
    ]);
    expect(report.reason).toMatch(/not trusted/);
    expect(pyhankoValidate(onTop).allHold).toBe(true);
  });
});

describe("a new, unsigned signature dictionary borrowing another signature's /ByteRange and CMS", () => {
  const bob = { name: "Bob Approver (CFO)", contactInfo: "bob@example.com", m: pdfDate(new Date("2031-01-01T00:00:00Z")) };
  const variants: Record<string, Parameters<typeof borrowSignature>[1]> = {
    "with a new /Name, /ContactInfo and /M": bob,
    "with a new /Name only": { name: bob.name },
    "with a new /M only": { m: bob.m },
    "with a DocMDP /Reference P=3 and an overlay annotation": { ...bob, docMdp: 3, overlay: true },
    "with a DocMDP /Reference P=3 named in /Perms, and an overlay annotation": { ...bob, docMdp: 3, perms: true, overlay: true },
    "with a DocMDP /Reference P=1": { ...bob, docMdp: 1 },
  };

  it.each(Object.keys(variants))("%s: valid false, and its /Name, /ContactInfo, /M are never reported", async (variant) => {
    const forged = await borrowSignature(signed, variants[variant]);
    const report = await verify(forged);
    expect(report, report.reason).toMatchObject({ valid: false, trusted: false });
    const [original, borrowed] = report.signatures as [Report, Report];
    expect(borrowed).toMatchObject({ field: "Approval", integrity: "broken", trusted: false, signerName: null, signingTime: null });
    expect(report.reason).toMatch(/Signature "Approval" is broken: the signature dictionary \(object \d+ 0\) is not inside the bytes its \/ByteRange covers/);
    // Nothing the forged dictionary claims reaches the report.
    const text = JSON.stringify(report);
    expect(text).not.toContain("Bob Approver");
    expect(text).not.toContain("bob@example.com");
    expect(text).not.toContain("2031-01-01");
    expect(report.signers.map((signer: Report) => signer.name)).toEqual(["Ada Lovelace", null]);
    // The real signature stays intact; an overlay is a change it does not permit (DocMDP only from the catalog's own certification).
    expect(original).toMatchObject({ field: "Signet_1", integrity: "ok", trusted: true });
    expect(original.docMdpPermission).toBeUndefined();
    if (variants[variant]!.overlay) {
      expect(original.changesPermitted).toBe(false);
      expect(report.reason).toMatch(/changed after signature "Signet_1" beyond what it permits/);
    }
    // pyHanko (strict) refuses it too: a verdict, not a crash.
    expectPyhanko(forged, "refuses");
  });

  it("the signed dictionary redefined in a later update (same object, new /Name and /M): broken, named as such", async () => {
    const forged = await redefineSignature(signed, "Bob Approver (CFO)", pdfDate(new Date("2031-01-01T00:00:00Z")));
    const report = await verify(forged);
    expect(report).toMatchObject({ valid: false, trusted: false });
    expect(report.signatures[0]).toMatchObject({ integrity: "broken", signerName: null, signingTime: null, trusted: false });
    expect(report.reason).toMatch(/readers show differs from the signed one \(it was redefined after signing\)/);
    expect(JSON.stringify(report)).not.toContain("Bob Approver");
    expectPyhanko(forged, "refuses");
  });
});

/**
 * universalNoVerdict records the forged shapes pyHanko 0.20.1 gives no verdict on (beside Signet's
 * signature and alone alike): the shape is the malformation itself, and pyHanko raises while it
 * lists or reads the forged signature instead of judging it. Signet's own verdict is asserted
 * instead; every other shape must get pyHanko's verdict that a signature does not hold.
 */
const unreadableSignature = (what: string, message: RegExp): PyhankoExpectation => ({
  noVerdict: message,
  why: `pyHanko's reader raises on a signature dictionary whose ${what} while listing the signatures, so it judges none`,
});
const universalNoVerdict: Record<string, PyhankoExpectation> = {
  "no /Contents": unreadableSignature("/Contents is missing", /^PdfReadError: Could not read \/Contents entry in signature/),
  "/Contents null": unreadableSignature("/Contents is not a string", /^PdfReadError: \/Contents must be string-like/),
  "/Contents a name": unreadableSignature("/Contents is not a string", /^PdfReadError: \/Contents must be string-like/),
  "/Contents a number": unreadableSignature("/Contents is not a string", /^PdfReadError: \/Contents must be string-like/),
  "/Contents empty": {
    noVerdict: /^ValueError: Insufficient data - 1 bytes requested but only 0 available/,
    why: "asn1crypto fails on an empty /Contents (no CMS to parse: Insufficient data)",
  },
  "/Contents all zeros": {
    noVerdict: /^ValueError: Error parsing asn1crypto\.cms\.ContentInfo/,
    why: "asn1crypto fails on zeros where a CMS ContentInfo must be",
  },
  "no /ByteRange": unreadableSignature("/ByteRange is missing", /^PdfReadError: Could not read \/ByteRange entry in signature/),
  "/ByteRange null": { noVerdict: /^TypeError: 'NullObject' object is not iterable/, why: "pyHanko iterates the /ByteRange and fails on null" },
  "/ByteRange with three numbers": {
    noVerdict: /^ValueError: List has odd number of elements/,
    why: "pyHanko pairs the /ByteRange numbers and fails on an odd count",
  },
  "/ByteRange a string": {
    noVerdict: /^TypeError: 'str' object cannot be interpreted as an integer/,
    why: "pyHanko reads the /ByteRange entries as integers and fails on a string",
  },
  "/ByteRange of names": {
    noVerdict: /^TypeError: 'NameObject' object cannot be interpreted as an integer/,
    why: "pyHanko reads the /ByteRange entries as integers and fails on names",
  },
};

/** universalInPyhanko is what pyHanko gives on a forged field, beside Signet's real signature or alone. */
function universalInPyhanko(shape: string): PyhankoExpectation {
  return universalNoVerdict[shape] ?? "refuses";
}

/** gapInPyhanko records the /Contents replacements whose CMS pyHanko cannot parse or place: no verdict, with the exception. */
const gapInPyhanko: Record<string, PyhankoExpectation> = {
  "the signer's certificate missing from the CMS": {
    noVerdict: /^SignatureValidationError: signer certificate not included in signature/,
    why: "pyHanko stops without a verdict when the CMS does not carry the signer's certificate (AdES INDETERMINATE, NO_SIGNING_CERTIFICATE_FOUND)",
  },
  "garbage instead of DER": {
    noVerdict: /^ValueError: Insufficient data - \d+ bytes requested/,
    why: "asn1crypto fails to parse the bytes as a CMS ContentInfo",
  },
  "a DER object that is not a CMS": {
    noVerdict: /^ValueError: Error parsing asn1crypto\.cms\.ContentType/,
    why: "asn1crypto fails to parse an INTEGER sequence as a CMS ContentInfo",
  },
  "a DER length running past the gap": {
    noVerdict: /^ValueError: Insufficient data - 4294967295 bytes requested/,
    why: "asn1crypto fails on a length longer than the data",
  },
};

describe("universal signature forgery: a signature dictionary without a real signature value", () => {
  const shapes = () => universalForgeries(signatureParts(signed));

  const names = Object.keys(universalForgeries({ byteRange: [0, 1, 3, 1], der: Buffer.from([0x30, 0]), gap: [1, 3] }));
  it.each(names.flatMap((shape) => (["beside", "alone"] as const).map((where) => [shape, where] as const)))(
    "%s, %s a real signature: valid false with a reason, never a 500",
    async (shape, where) => {
      const forged = await forgedField(where === "beside" ? signed : input, shapes()[shape]!);
      const report = await verify(forged);
      expect(report, report.reason).toMatchObject({ valid: false, trusted: false });
      const entry = (report.signatures as Report[]).find((signature) => signature.field === "Forged");
      if (entry) {
        expect(entry).toMatchObject({ integrity: "broken", trusted: false, signerName: null });
        expect(report.reason).toMatch(/Signature "Forged" is broken: \S+/);
      } else expect(report.reason).toBe("The document has no signatures.");
      expectPyhanko(forged, universalInPyhanko(shape));
    },
  );

  it("a copy of a real signature dictionary placed directly in a new field's /V: broken, not a second signer", async () => {
    const forged = await directSignature(signed);
    const report = await verify(forged);
    expect(report).toMatchObject({ valid: false, trusted: false });
    expect((report.signatures as Report[]).find((signature) => signature.field === "Direct")).toMatchObject({ integrity: "broken", signerName: null });
    expect(report.reason).toMatch(/\/V is not an indirect reference to a signature dictionary/);
    // pyHanko 0.20.1 expects /V to be a reference and fails on the direct dictionary while listing the signatures.
    expectPyhanko(forged, {
      noVerdict: /^AttributeError: 'DictionaryObject' object has no attribute 'reference'/,
      why: "pyHanko reads /V as a reference and fails on a direct dictionary (no .reference)",
    });
  });

  const gapCases: Record<string, [() => string, RegExp]> = {
    "a CMS over other bytes (another document's)": [() => signatureParts(otherSigned).der.toString("hex"), /the document digest does not match/],
    "the signer's certificate missing from the CMS": [
      () => withoutCertificates(signatureParts(signed).der).toString("hex"),
      /certificate is not in the signature/,
    ],
    "garbage instead of DER": [() => "deadbeef".repeat(64), /not a readable CMS structure/],
    "a DER object that is not a CMS": [() => "3006020101020102", /not a readable CMS structure/],
    "a DER length running past the gap": [() => "3084ffffffff", /not a readable CMS structure|truncated/],
  };

  it.each(Object.keys(gapCases))("/Contents replaced in place by %s: broken", async (name) => {
    const [hex, reason] = gapCases[name]!;
    const forged = replaceGap(signed, hex());
    const report = await verify(forged);
    expect(report).toMatchObject({ valid: false, trusted: false });
    expect(report.signatures[0]).toMatchObject({ integrity: "broken", trusted: false, signerName: null, signingTime: null });
    expect(report.reason).toMatch(reason);
    expectPyhanko(forged, gapInPyhanko[name] ?? "refuses");
  });
});

describe("signature wrapping: the signed bytes moved, or content in the gap", () => {
  it("content hidden in the zero padding after the DER: broken (pyHanko ignores it: a deliberate difference)", async () => {
    const { der } = signatureParts(signed);
    const forged = replaceGap(signed, der.toString("hex") + Buffer.from("Pay Mallory 1,000,000 EUR").toString("hex"));
    const report = await verify(forged);
    expect(report).toMatchObject({ valid: false, trusted: false });
    expect(report.reason).toMatch(/holds more than one DER object and zero padding/);
    // Deliberate difference: pyHanko reads only the DER object and says the signature holds; the
    // bytes after it are covered by no signature, and Signet refuses a gap that is not one DER object plus zeros.
    expectPyhanko(forged, { holds: "pyHanko reads only the DER object" });
  });

  // The insertion is a dictionary entry: the /Contents string ends inside the signature dictionary,
  // so an object there (as before) made the file unreadable and tested nothing of the wrapping.
  it("an entry inserted between the /Contents string and the second signed part (offsets kept right): broken", async () => {
    const forged = insertAfterGap(signed, " /Mallory (Pay Mallory 1,000,000 EUR)");
    const report = await verify(forged);
    expect(report).toMatchObject({ valid: false, trusted: false });
    expect(report.signatures[0]).toMatchObject({ integrity: "broken" });
    expectPyhanko(forged, "refuses");
  });

  it("a /ByteRange whose gap spans /Contents and the entries after it: broken, the gap is not this /Contents", async () => {
    const forged = widenGap(signed);
    const report = await verify(forged);
    expect(report).toMatchObject({ valid: false, trusted: false });
    expect(report.reason).toMatch(/the \/ByteRange gap is not exactly this signature dictionary's \/Contents string/);
    expectPyhanko(forged, "refuses");
  });

  it("a /ByteRange of reals where readers expect integers: broken", async () => {
    const forged = await forgedField(input, {
      ByteRange: new PdfArray(signatureParts(signed).byteRange.map((value) => PdfNumber.of(value + 0.5))),
      Contents: new PdfString(signatureParts(signed).der, "hex"),
    });
    const report = await verify(forged);
    expect(report).toMatchObject({ valid: false, trusted: false });
  });
});

describe("trust comes from keys, never from names", () => {
  it('a foreign self-signed certificate named "Signet Local Signing": intact but not trusted, another fingerprint', async () => {
    const impostor = await generateIdentity({ keyType: "EC", commonName: "Signet Local Signing" });
    const foreign = await signPdf(input, { identity: impostor, signingTime: new Date(), signerName: "Ada Lovelace", reason: "approval" });
    const report = await verify(foreign);
    expect(report).toMatchObject({ valid: true, trusted: false });
    expect(report.signatures[0]).toMatchObject({ integrity: "ok", trusted: false, certificateSubject: "CN=Signet Local Signing" });
    expect(report.signatures[0].fingerprint).not.toBe(service.fingerprint);
    expect(report.reason).toMatch(/"Signet_1" is not signed with this service's certificate .* not trusted/);
    // pyHanko, trusting Signet's real root, agrees: intact, untrusted.
    expect(pyhankoValidate(foreign, [service.rootPem]).signatures[0]).toMatchObject({ intact: true, trusted: false });
  });

  it('a foreign chain: "Signet Local Signing" issued by a foreign "Signet Local Root CA", both in the CMS: not trusted', async () => {
    const root = await generateIdentity({ keyType: "EC", commonName: "Signet Local Root CA", isCa: true });
    const leaf = await generateIdentity({ keyType: "EC", commonName: "Signet Local Signing", issuer: root });
    const foreign = await signPdf(input, { identity: leaf, signingTime: new Date(), signerName: "Ada Lovelace", reason: "r" });
    const report = await verify(foreign);
    expect(report).toMatchObject({ valid: true, trusted: false });
    expect(report.signatures[0]).toMatchObject({ integrity: "ok", trusted: false });
    expect(pyhankoValidate(foreign, [service.rootPem]).signatures[0]).toMatchObject({ intact: true, trusted: false });
  });

  it("a real Signet signature followed by a forged one: the top-level trusted is false", async () => {
    const forged = await borrowSignature(signed, { name: "Bob Approver (CFO)" });
    const report = await verify(forged);
    expect(report.signatures[0].trusted).toBe(true);
    expect(report.trusted).toBe(false);
  });
});

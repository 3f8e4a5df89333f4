import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { signDocument, type SignDependencies, type SignInput } from "#domain/signing/sign-document.ts";
import type { SigningIdentity } from "#domain/signing/signing-identity.ts";
import { pdfsig } from "#test/helpers/pdf-tools.ts";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { verifySignatures } from "#domain/verification/signature-verifier.ts";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { timestampDocument } from "#domain/signing/timestamp-document.ts";
import { startLoopbackPki, type LoopbackPki } from "#test/helpers/pki/loopback-ltv-pki.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { expectSignedPdf, pyhankoLtv, pyhankoValidate } from "#test/helpers/signature-checks.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";
import { generateIdentity } from "#domain/signing/signing-identity.ts";
import { loadConfig } from "#config";

/** fetchSettings are the default fetch settings (the settings table's), which each fetcher here adjusts. */
const fetchSettings = loadConfig({}).fetch;

let pki: LoopbackPki;
let identity: SigningIdentity;
let input: Buffer;

beforeAll(async () => {
  pki = await startLoopbackPki();
  identity = pki.identity();
  input = await makePdf(1);
}, 60_000);

afterAll(() => pki?.close());

const loopback: Fetcher = createSafeFetcher({ ...fetchSettings, allowHttp: true, allowAddresses: ["127.0.0.1"], timeoutMs: 5_000 });
const noFetch: Fetcher = { fetch: () => Promise.reject(new Error("no document fetch in this test")) };

function deps(extra: Partial<SignDependencies> = {}): SignDependencies {
  return {
    fetcher: noFetch,
    converter: { convert: () => Promise.reject(new Error("no conversion")) },
    identities: { load: async () => identity },
    fonts: testFonts,
    limits: {
      maxDocumentBytes: 25 * 1024 * 1024,
      maxEntries: 5000,
      maxUncompressedBytes: 200 * 1024 * 1024,
      maxImagePixels: 100_000_000,
      maxSvgBytes: 10 * 1024 * 1024,
      maxAuditEvents: 100,
      maxMetadataBytes: 16 * 1024,
    },
    timestamper: createHttpTimestamper(pki.tsaUrl, 5_000),
    timestampAuthority: "127.0.0.1",
    revocationFetcher: loopback,
    ...extra,
  };
}

const request = (level?: SignInput["level"]): SignInput => ({
  document: { base64: input.toString("base64") },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
  ...(level ? { level } : {}),
});

/** ltvValidate runs pyHanko's PAdES long-term validation offline, trusting the loopback root. */
const ltvValidate = (pdf: Buffer, profile: "LT" | "LTA") => pyhankoLtv(pdf, profile, [pki.rootPem]);

const dss = (pdf: Buffer) => pdf.toString("latin1");

/** verified is Signet's own /v1/verify report, trusting the loopback root. */
async function verified(pdf: Buffer) {
  return verifySignatures(openPdfFile(pdf), { anchors: [new X509Certificate(readFileSync(pki.rootPem))] });
}

/** expectValid: pdfsig finds `count` signatures, each valid; the input is a byte prefix (DSS updates follow the last one). */
async function expectValid(signed: Buffer, count: number): Promise<void> {
  expect(signed.subarray(0, input.length).equals(input)).toBe(true);
  const found = await pdfsig(signed);
  expect(found.map((signature) => signature.valid)).toEqual(Array(count).fill(true));
}

describe("signature levels", () => {
  it("B-T and above without a TSA is LEVEL_UNAVAILABLE naming SIGNET_TSA_URL; B-B is the default then", async () => {
    for (const level of ["B-T", "B-LT", "B-LTA"] as const) {
      await expect(signDocument(request(level), deps({ timestamper: undefined }))).rejects.toMatchObject({
        code: "LEVEL_UNAVAILABLE",
        message: expect.stringContaining("SIGNET_TSA_URL"),
      });
    }
    const before = pki.served.tsa;
    const signed = await signDocument(request(), deps({ timestamper: undefined }));
    await expectSignedPdf(signed, { input });
    expect(dss(signed)).not.toContain("/DSS");
    expect(pki.served.tsa).toBe(before);
  });

  it("B-B with a TSA configured asks no timestamp", async () => {
    const before = pki.served.tsa;
    const signed = await signDocument(request("B-B"), deps());
    await expectSignedPdf(signed, { input });
    expect(pki.served.tsa).toBe(before);
    expect(pyhankoValidate(signed, [pki.rootPem]).allHold).toBe(true);
    expect((await verified(signed)).signatures).toMatchObject([{ level: "B-B", documentTimestamp: false }]);
  });

  it("B-T (the default with a TSA) has a timestamp but no DSS, and is not LT-valid offline", async () => {
    const before = pki.served.tsa;
    const signed = await signDocument(request(), deps());
    expect(pki.served.tsa).toBe(before + 1);
    expect(dss(signed)).not.toContain("/DSS");
    expect(ltvValidate(signed, "LT").ok).toBe(false);
    const [signature] = (await verified(signed)).signatures;
    expect(signature).toMatchObject({ level: "B-T" });
    expect(signature!.validationData).toBeUndefined();
  });

  it("B-LT adds a DSS with the chains, CRLs and VRI entries: pdfsig, pyHanko and offline LT validation hold", async () => {
    const before = pki.served.crl;
    const signed = await signDocument(request("B-LT"), deps());
    expect(pki.served.crl).toBeGreaterThan(before);
    const text = dss(signed);
    expect(text).toContain("/DSS");
    expect(text).toMatch(/\/CRLs/);
    expect(text).toMatch(/\/VRI/);
    await expectValid(signed, 1);
    const report = pyhankoValidate(signed, [pki.rootPem]);
    expect(report.allHold, report.output).toBe(true);
    const ltv = ltvValidate(signed, "LT");
    expect(ltv.ok, ltv.output).toBe(true);
    const verification = await verified(signed);
    expect(verification.valid, verification.reason).toBe(true);
    expect(verification.signatures).toMatchObject([{ level: "B-LT", validationData: { offline: true }, modificationLevel: "lta", trusted: true }]);
  });

  it("verify says when the DSS does not suffice offline (the TSA's CRL left out)", async () => {
    const signed = await signDocument(request("B-LT"), deps());
    // Drop the CRLs from the DSS by renaming the key: the chains stay, the revocation data goes.
    const text = signed.toString("latin1");
    const at = text.lastIndexOf("/CRLs");
    const stripped = Buffer.from(signed);
    stripped.write("/CRLx", at, "latin1");
    const [signature] = (await verified(stripped)).signatures;
    expect(signature).toMatchObject({
      level: "B-LT",
      validationData: { offline: false, problem: expect.stringContaining("no embedded OCSP response or CRL covers") },
    });
  });

  it("B-LT with an OCSP responder named in the certificate embeds OCSP responses", async () => {
    const before = pki.served.ocsp;
    const signed = await signDocument(request("B-LT"), deps({ identities: { load: async () => pki.identity({ ocsp: true }) } }));
    expect(pki.served.ocsp).toBeGreaterThan(before);
    expect(dss(signed)).toMatch(/\/OCSPs/);
    const ltv = ltvValidate(signed, "LT");
    expect(ltv.ok, ltv.output).toBe(true);
    expect((await verified(signed)).signatures).toMatchObject([{ level: "B-LT", validationData: { offline: true } }]);
  });

  it("B-LTA adds a document timestamp (ETSI.RFC3161) and its validation data: valid offline as PAdES-LTA", async () => {
    const signed = await signDocument(request("B-LTA"), deps());
    expect(dss(signed)).toContain("/ETSI.RFC3161");
    expect(dss(signed)).toContain("/DocTimeStamp");
    // The shared validate script stops at a /DocTimeStamp ("Signature object type must be /Sig");
    // pyHanko's LTA validation checks the document timestamp chain itself.
    const ltv = ltvValidate(signed, "LTA");
    expect(ltv.ok, ltv.output).toBe(true);
    // pdfsig lists the document timestamp but does not verify one ("not yet been verified"): pyHanko did above.
    const found = await pdfsig(signed);
    expect(found.map((signature) => signature.valid)).toEqual([true, false]);
    pki.failCrl = 503; // the network "off": Signet's verify never fetches; the data is embedded
    try {
      const report = await verified(signed);
      expect(report.valid, report.reason).toBe(true);
      expect(report.signatures).toMatchObject([
        { level: "B-LTA", documentTimestamp: false, validationData: { offline: true } },
        {
          level: null,
          documentTimestamp: true,
          integrity: "ok",
          subFilter: "ETSI.RFC3161",
          timestamp: { tokenValid: true },
          validationData: { offline: true },
        },
      ]);
      expect(report.signers).toHaveLength(1);
    } finally {
      pki.failCrl = 0;
    }
  });

  it("fails loudly with FETCH_FAILED naming the CRL's URL when it cannot be fetched", async () => {
    pki.failCrl = 404;
    try {
      await expect(signDocument(request("B-LT"), deps())).rejects.toMatchObject({ code: "FETCH_FAILED", message: expect.stringContaining(pki.crlUrl) });
    } finally {
      pki.failCrl = 0;
    }
  });

  it("refuses B-LT for a certificate that names no revocation data", async () => {
    const bare = await generateIdentity({ keyType: "EC", issuer: await generateIdentity({ keyType: "EC", isCa: true }) });
    await expect(signDocument(request("B-LT"), deps({ identities: { load: async () => bare } }))).rejects.toMatchObject({
      code: "LEVEL_UNAVAILABLE",
      message: expect.stringContaining("names no OCSP responder or CRL distribution point"),
    });
  });

  it("POST /v1/timestamp's renewal adds a second document timestamp with fresh data; every signature stays valid", async () => {
    const lta = await signDocument(request("B-LTA"), deps());
    const renewal = { fetcher: noFetch, revocationFetcher: loopback, timestamper: createHttpTimestamper(pki.tsaUrl, 5_000), limits: deps().limits };
    const renewed = await timestampDocument({ base64: lta.toString("base64") }, renewal);
    expect(renewed.subarray(0, lta.length).equals(lta)).toBe(true);
    const ltv = ltvValidate(renewed, "LTA");
    expect(ltv.ok, ltv.output).toBe(true);
    const report = await verified(renewed);
    expect(report.valid, report.reason).toBe(true);
    expect(
      report.signatures.map((signature) => [signature.documentTimestamp, signature.level, signature.integrity, signature.validationData?.offline]),
    ).toEqual([
      [false, "B-LTA", "ok", true],
      [true, null, "ok", true],
      [true, null, "ok", true],
    ]);
    // A B-T document becomes B-LTA the same way.
    const bt = await signDocument(request("B-T"), deps());
    const extended = await timestampDocument({ base64: bt.toString("base64") }, renewal);
    expect((await verified(extended)).signatures[0]).toMatchObject({ level: "B-LTA", validationData: { offline: true } });
    expect(ltvValidate(extended, "LTA").ok).toBe(true);
  });

  it("the renewal refuses an unsigned PDF and a server without a TSA", async () => {
    const renewal = { fetcher: noFetch, revocationFetcher: loopback, timestamper: createHttpTimestamper(pki.tsaUrl, 5_000), limits: deps().limits };
    await expect(timestampDocument({ base64: input.toString("base64") }, renewal)).rejects.toMatchObject({
      code: "INVALID_DOCUMENT",
      message: expect.stringContaining("no signature"),
    });
    await expect(timestampDocument({ base64: input.toString("base64") }, { ...renewal, timestamper: undefined })).rejects.toMatchObject({
      code: "LEVEL_UNAVAILABLE",
      message: expect.stringContaining("SIGNET_TSA_URL"),
    });
  });
});

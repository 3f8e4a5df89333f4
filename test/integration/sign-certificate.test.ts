import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Converter } from "#domain/documents/converter.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { listSignatures } from "#domain/verification/signature-verifier.ts";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { signDocument, type SignDependencies, type SignInput } from "#domain/signing/sign-document.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";

let identity: SigningIdentity;
let input: Buffer;
let converted: Buffer;

beforeAll(async () => {
  identity = await generateIdentity({ keyType: "EC" });
  input = await makePdf(2, { title: "Master Services Agreement" });
  converted = await makePdf(1);
}, 30_000);

const noFetch: Fetcher = { fetch: () => Promise.reject(new Error("no fetch in this test")) };
// The converter port's double: returns a fixed PDF (LibreOffice itself is tested through the HTTP test).
const fakeConverter: Converter & { calls: number } = {
  calls: 0,
  async convert() {
    this.calls++;
    return converted;
  },
};

function deps(extra: Partial<SignDependencies> = {}): SignDependencies {
  return {
    fetcher: noFetch,
    converter: fakeConverter,
    identities: { load: async () => identity },
    fonts: testFonts,
    limits: {
      maxDocumentBytes: 25 * 1024 * 1024,
      maxEntries: 5000,
      maxUncompressedBytes: 200 * 1024 * 1024,
      maxImagePixels: 100_000_000,
      maxSvgBytes: 10 * 1024 * 1024,
      maxAuditEvents: 10_000,
      maxMetadataBytes: 16 * 1024,
    },
    now: () => new Date("2026-11-22T10:00:00Z"),
    ...extra,
  };
}

const names = {
  latin: "Zoë Ångström-Núñez",
  cyrillic: "Иван Петров",
  greek: "Πέτρος Παπαδόπουλος",
  cjk: "山田太郎",
  arabic: "محمد علي",
};
const userAgent =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0 SomeVeryLongEmbeddedWebViewTokenWithoutAnySpaces/1.2.3.4.5.6.7.8.9";

function request(extra: Partial<SignInput> = {}): SignInput {
  return {
    document: { base64: input.toString("base64") },
    signer: { name: Object.values(names).join(" "), email: "zoe@example.com", ip: "2001:db8::7", userAgent },
    auditTrail: [
      { type: "submit", timestamp: "2026-11-22T09:59:30Z", data: { button: "Finish" } },
      { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
      { type: "scroll", timestamp: "2026-11-22T09:56:00+01:00", data: { percent: 100 } },
      { type: "field_change", timestamp: "2026-11-22T09:57:00.250Z", data: { field: "name", value: "Zoë" } },
    ],
    eventId: "evt_42",
    metadata: { contract: "C-42", region: "EU" },
    ...extra,
  };
}

// pdftotext writes Arabic as presentation forms wrapped in bidi marks; NFKC folds them back.
const normalise = (text: string) => text.normalize("NFKC").replace(/[\u200e\u200f\u202a-\u202e]/g, "");
const squash = (text: string) => text.replace(/\s+/g, "");

describe("audit trail certificate page", () => {
  it("shows the signer in every script, IP, user agent, every event type and the input's SHA-256", async () => {
    const signed = await signDocument(request(), deps());
    await expectSignedPdf(signed, { input });
    expect(await pdfPageCount(signed)).toBe(3);
    const page = normalise(await pdfText(signed, { first: 3 }));
    for (const name of Object.values(names)) expect(page).toContain(name);
    expect(page).toContain("2001:db8::7");
    expect(squash(page)).toContain(squash(userAgent));
    for (const type of ["ready", "scroll", "field_change", "submit"]) expect(page).toContain(type);
    expect(page).toContain(createHash("sha256").update(input).digest("hex"));
    expect(page).toContain("Master Services Agreement");
    expect(page).toContain("evt_42");
    expect(page).toContain("contract");
    expect(page).toContain("C-42");
    expect(squash(page)).toContain(identity.certificate.fingerprint256);
    expect(page).toContain("Page 1 of 1");
  });

  it("lists events in time order with UTC times", async () => {
    const signed = await signDocument(request(), deps());
    await expectSignedPdf(signed, { input });
    const page = await pdfText(signed, { first: 3 });
    const order = ["2026-11-22 08:56:00 UTC", "2026-11-22 09:55:00 UTC", "2026-11-22 09:57:00.250 UTC", "2026-11-22 09:59:30 UTC"].map((time) =>
      page.indexOf(time),
    );
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("flows 10,000 events onto as many pages as needed, each numbered", async () => {
    const auditTrail = Array.from({ length: 10_000 }, (_, index) => ({
      type: index === 9_999 ? ("submit" as const) : ("scroll" as const),
      timestamp: new Date(Date.UTC(2026, 10, 22, 9, 0, 0, index)).toISOString(),
      data: { position: index },
    }));
    const signed = await signDocument(request({ auditTrail }), deps());
    const pages = await pdfPageCount(signed);
    const certificatePages = pages - 2;
    expect(certificatePages).toBeGreaterThan(50);
    const text = await pdfText(signed, { first: 3 });
    expect(text).toContain(`Page ${certificatePages} of ${certificatePages}`);
    expect(text).toContain("position: 9999");
    await expectSignedPdf(signed, { input });
  }, 60_000);

  it("adds no page when certificate.enabled is false", async () => {
    const signed = await signDocument(request({ certificate: { enabled: false } }), deps());
    expect(await pdfPageCount(signed)).toBe(2);
    await expectSignedPdf(signed, { input });
  });

  it("converts DOCX input through the converter port first", async () => {
    const docx = buildDocx({ body: p(run("Hello")) });
    const before = fakeConverter.calls;
    const signed = await signDocument(request({ document: { base64: Buffer.from(docx).toString("base64") } }), deps());
    expect(fakeConverter.calls).toBe(before + 1);
    // The converter's PDF is what gets signed: it is the prefix.
    await expectSignedPdf(signed, { input: converted });
    expect(await pdfPageCount(signed)).toBe(2);
    // The certificate names the DOCX as received, and the converted PDF the signature covers.
    const page = squash(await pdfText(signed, { first: 2 }));
    expect(page).toContain(createHash("sha256").update(docx).digest("hex"));
    expect(page).toContain("SHA-256ofthePDFconvertedfromit");
    expect(page).toContain(createHash("sha256").update(converted).digest("hex"));
  });

  it("shows no converted-PDF hash and no earlier signatures for an unsigned PDF", async () => {
    const page = squash(await pdfText(await signDocument(request(), deps()), { first: 3 }));
    expect(page).not.toContain("convertedfromit");
    expect(page).not.toContain("Signaturesalreadyinthedocument");
  });
});

describe("listSignatures (the certificate's earlier signatures)", () => {
  it("names each signature already in a document with the time its dictionary claims", async () => {
    const once = await signDocument(request({ certificate: { enabled: false }, signer: { name: "Ada Lovelace", email: "ada@example.com" } }), deps());
    const later = () => new Date("2026-11-22T11:30:00Z");
    const twice = await signDocument(
      request({ document: { base64: once.toString("base64") }, signer: { name: "Grace Hopper", email: "grace@example.com" } }),
      deps({ now: later }),
    );
    expect(listSignatures(openPdfFile(twice).latest)).toEqual([
      { signer: "Ada Lovelace", signedAt: new Date("2026-11-22T10:00:00Z") },
      { signer: "Grace Hopper", signedAt: new Date("2026-11-22T11:30:00Z") },
    ]);
    expect(listSignatures(openPdfFile(input).latest)).toEqual([]);
  });
});

describe("sign input rules", () => {
  it.each([
    ["no submit event", { auditTrail: [{ type: "ready" as const, timestamp: "2026-11-22T09:55:00Z" }] }, "MISSING_SUBMIT_EVENT"],
    [
      "too many events",
      { auditTrail: Array.from({ length: 11 }, () => ({ type: "submit" as const, timestamp: "2026-11-22T09:55:00Z" })) },
      "PAYLOAD_TOO_LARGE",
    ],
    ["metadata too large", { metadata: { blob: "x".repeat(200) } }, "PAYLOAD_TOO_LARGE"],
    ["not a PDF or DOCX", { document: { base64: Buffer.from("hello world").toString("base64") } }, "INVALID_DOCUMENT"],
  ])("%s -> %s", async (_name, extra, code) => {
    const limited = deps({ limits: { ...deps().limits, maxAuditEvents: 10, maxMetadataBytes: 100 } });
    await expect(signDocument(request(extra), limited)).rejects.toMatchObject({ code });
  });
});

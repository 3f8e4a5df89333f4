// What the certificate page says (content.ts), from the audit data alone: no fonts, no PDF.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  certificateContent,
  footerText,
  formatUtc,
  pageLabel,
  sortEvents,
  VALUE_LIMIT,
  type AuditCertificate,
  type Block,
} from "#domain/certificate-page/content.ts";

function certificate(extra: Partial<AuditCertificate> = {}): AuditCertificate {
  return {
    documentSha256: "ab".repeat(32),
    documentPages: 2,
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    events: [
      { type: "submit", timestamp: "2026-11-22T09:59:30Z", data: { button: "Finish", n: 2, ok: true, list: [1, null] } },
      { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
    ],
    signingTime: new Date("2026-11-22T10:00:00Z"),
    service: { subject: "CN=Signet Test", fingerprint: "cd".repeat(32), algorithm: "ECDSA P-256" },
    ...extra,
  };
}

/** outline is the content as one line per block: "section: X", "field: label = value", "events: n", "paragraphs: n". */
function outline(blocks: Block[]): string[] {
  return blocks.map((block) => {
    switch (block.kind) {
      case "title":
        return `title: ${block.title}`;
      case "section":
        return `section: ${block.title}`;
      case "field":
        return `field: ${block.label} = ${block.value}${block.style === "mono" ? " (mono)" : ""}`;
      case "events":
        return `events: ${block.rows.length}`;
      default:
        return `paragraphs: ${block.lines.length}`;
    }
  });
}

describe("certificateContent", () => {
  it("says, in order, the document, signer, signature, audit trail and how to verify", () => {
    expect(outline(certificateContent(certificate()))).toEqual([
      "title: Audit Trail Certificate",
      "section: Document",
      `field: SHA-256 as received = ${"ab".repeat(32)} (mono)`,
      "field: Pages = 2 (this certificate follows them)",
      "section: Signer",
      "field: Name = Ada Lovelace",
      "field: E-mail = ada@example.com",
      "section: Signature",
      "field: Signed at = 2026-11-22 10:00:00 UTC (server clock)",
      "field: Standard = PAdES baseline B-B (ETSI.CAdES.detached), SHA-256",
      "field: Certificate subject = CN=Signet Test",
      "field: Key = ECDSA P-256",
      `field: Certificate SHA-256 = ${"cd".repeat(32)} (mono)`,
      "section: Audit trail (2 events)",
      "events: 2",
      "section: How to verify",
      "paragraphs: 3",
    ]);
  });

  it("adds every optional detail where it belongs", () => {
    const lines = outline(
      certificateContent(
        certificate({
          documentName: "Lease",
          eventId: "evt-7",
          convertedPdfSha256: "ef".repeat(32),
          rewrittenPdf: { reason: "repaired", sha256: "12".repeat(32) },
          signer: { name: "Ada", email: "ada@example.com", ip: "203.0.113.7", userAgent: "curl/8" },
          existingSignatures: [{ signer: "Bob", signedAt: new Date("2026-01-01T00:00:00.5Z") }, { signer: "" }],
          timestampAuthority: "http://tsa.example",
          metadata: { contract: "C-42", parties: ["a", "b"] },
          events: [{ type: "submit", timestamp: "2026-11-22T09:59:30Z" }],
        }),
      ),
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        "field: Title = Lease",
        `field: SHA-256 of the PDF converted from it (signed) = ${"ef".repeat(32)} (mono)`,
        `field: SHA-256 after Signet's rewrite (repaired; signed) = ${"12".repeat(32)} (mono)`,
        "field: Event ID = evt-7",
        "field: IP address = 203.0.113.7",
        "field: User agent = curl/8",
        "section: Signatures already in the document (2)",
        "field: Signature 1 = Bob · 2026-01-01 00:00:00.500 UTC (as that signature states)",
        "field: Signature 2 = unnamed signer",
        "field: Standard = PAdES baseline B-T (ETSI.CAdES.detached), SHA-256",
        "field: Timestamp authority = http://tsa.example",
        "section: Metadata",
        "field: contract = C-42",
        'field: parties = ["a","b"]',
        "section: Audit trail (1 event)",
      ]),
    );
    expect(lines.indexOf("section: Metadata")).toBeGreaterThan(lines.indexOf("field: Key = ECDSA P-256"));
    expect(lines.indexOf("section: Metadata")).toBeLessThan(lines.indexOf("section: Audit trail (1 event)"));
  });

  it.each([
    [1, "no changes: any change to the document invalidates the certification"],
    [2, "filling in form fields and adding signatures; any other change invalidates the certification"],
    [3, "filling in form fields, adding signatures and adding, changing or deleting annotations; any other change invalidates the certification"],
  ] as const)("says that the signature certifies the document with P=%i and what that permits", (permission, words) => {
    const content = certificateContent(certificate({ certification: { permission } }));
    const lines = outline(content);
    const standard = lines.indexOf("field: Standard = PAdES baseline B-B (ETSI.CAdES.detached), SHA-256");
    expect(lines.slice(standard + 1, standard + 3)).toEqual([
      "field: Certification = This signature certifies the document (a certification signature, DocMDP)",
      `field: Permitted changes (P=${permission}) = ${words}`,
    ]);
    const verify = content.at(-1) as Extract<Block, { kind: "paragraphs" }>;
    expect(verify.lines.at(-1)).toBe("A change the certification does not permit breaks it; this page is covered by the signature.");
    expect(outline(certificateContent(certificate())).some((line) => line.includes("Certification"))).toBe(false);
  });

  it("lists events in time order, with readable details, a dash for none and an unreadable time as given", () => {
    const content = certificateContent(certificate({ events: [...certificate().events, { type: "odd", timestamp: "yesterday", data: { note: null } }] }));
    const events = content.find((block) => block.kind === "events");
    expect(events).toEqual({
      kind: "events",
      note: "Times as the client reported them, in UTC.",
      rows: [
        { number: "1", time: "2026-11-22 09:55:00 UTC", type: "ready", details: "—" },
        { number: "2", time: "2026-11-22 09:59:30 UTC", type: "submit", details: "button: Finish; n: 2; ok: true; list: [1,null]" },
        // Date.parse("yesterday") is NaN: it sorts where NaN comparisons leave it, and shows as given.
        { number: "3", time: "yesterday", type: "odd", details: "note: null" },
      ],
    });
  });

  it("cuts a value longer than VALUE_LIMIT and names the whole value's SHA-256", () => {
    const long = "é".repeat(VALUE_LIMIT + 1);
    const field = certificateContent(certificate({ metadata: { long, short: "é".repeat(VALUE_LIMIT) } })).filter((block) => block.kind === "field");
    const cut = field.find((block) => block.label === "long")!;
    const digest = createHash("sha256").update(long, "utf8").digest("hex");
    expect(cut.value).toBe(`${"é".repeat(VALUE_LIMIT)}… (truncated; SHA-256 of the full value: ${digest})`);
    expect(field.find((block) => block.label === "short")!.value).toBe("é".repeat(VALUE_LIMIT));
  });
});

describe("the certificate's small texts", () => {
  it.each([
    { date: "2026-11-22T09:58:00Z", text: "2026-11-22 09:58:00 UTC" },
    { date: "2026-11-22T09:58:00.042Z", text: "2026-11-22 09:58:00.042 UTC" },
  ])("formatUtc($date)", ({ date, text }) => {
    expect(formatUtc(new Date(date))).toBe(text);
  });

  it("sortEvents keeps the given order for equal times", () => {
    const at = "2026-11-22T09:00:00Z";
    expect(
      sortEvents([
        { type: "b", timestamp: at },
        { type: "a", timestamp: "2026-11-22T08:00:00Z" },
        { type: "c", timestamp: at },
      ]).map((e) => e.type),
    ).toEqual(["a", "b", "c"]);
  });

  it("footer and page label", () => {
    expect(footerText(certificate())).toBe(`Signet audit trail certificate · document SHA-256 ${"ab".repeat(8)}…`);
    expect(pageLabel(0, 3)).toBe("Page 1 of 3");
  });
});

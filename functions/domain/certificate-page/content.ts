// What the certificate page says, from the audit data: the blocks in order (title, sections, fields,
// the event table, how to verify) and the footer, as plain text. Pure: no fonts, no layout.
import { createHash } from "node:crypto";

/** AuditEvent is one entry of the signer's audit trail. */
export interface AuditEvent {
  type: string;
  timestamp: string;
  data?: Record<string, unknown> | undefined;
}

/** AuditCertificate is everything the certificate page shows (docs/api.md, "Sign and verify"). */
export interface AuditCertificate {
  /** The document's title, or its file name, when known. */
  documentName?: string | undefined;
  /** SHA-256 (hex) of the document as received. */
  documentSha256: string;
  /** Pages of the document before the certificate was added. */
  documentPages: number;
  eventId?: string | undefined;
  signer: { name: string; email: string; ip?: string | undefined; userAgent?: string | undefined };
  events: AuditEvent[];
  signingTime: Date;
  service: { subject: string; fingerprint: string; algorithm: string };
  /** SHA-256 (hex) of the PDF converted from DOCX input, which is what gets signed. */
  convertedPdfSha256?: string | undefined;
  /** Set when Signet rewrote the PDF once before signing (repair, hybrid made plain): why, and the rewrite's SHA-256. */
  rewrittenPdf?: { reason: string; sha256: string } | undefined;
  /** Signatures the document already carries, in document order. */
  existingSignatures?: Array<{ signer: string; signedAt?: Date | undefined }> | undefined;
  /** Set when the signature gets an RFC 3161 timestamp. */
  timestampAuthority?: string | undefined;
  /** Set when the signature certifies the document (DocMDP): the permission P it grants later changes. */
  certification?: { permission: 1 | 2 | 3 } | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** formatUtc renders an instant as "2026-11-22 09:58:00 UTC" (milliseconds kept when present). */
export function formatUtc(date: Date): string {
  const iso = date.toISOString();
  const millis = iso.slice(19, 23);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${millis === ".000" ? "" : millis} UTC`;
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * VALUE_LIMIT is the most characters (code points) of one value the page draws: an event's
 * details, a metadata value, a signer field. Shorter values are wrapped in full; a longer one
 * shows its first VALUE_LIMIT characters and the SHA-256 of the whole value, so nothing is cut
 * without saying so and the full value can still be matched against the page.
 */
export const VALUE_LIMIT = 4000;

/** boundValue applies VALUE_LIMIT: the value itself, or its start + "… (truncated; SHA-256 of the full value: …)". */
function boundValue(text: string): string {
  if (text.length <= VALUE_LIMIT) return text;
  const chars = Array.from(text);
  if (chars.length <= VALUE_LIMIT) return text;
  const digest = createHash("sha256").update(text, "utf8").digest("hex");
  return `${chars.slice(0, VALUE_LIMIT).join("")}… (truncated; SHA-256 of the full value: ${digest})`;
}

/** summarizeData turns an event's data into one readable line, "key: value; key: value", within VALUE_LIMIT. */
function summarizeData(data: Record<string, unknown> | undefined): string {
  if (!data) return "";
  const text = Object.entries(data)
    .map(([key, value]) => `${key}: ${formatValue(value)}`)
    .join("; ");
  return boundValue(text);
}

/** sortEvents orders audit events by time, keeping the given order for equal times. */
export function sortEvents(events: AuditEvent[]): AuditEvent[] {
  return events
    .map((event, index) => ({ event, index, at: Date.parse(event.timestamp) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((entry) => entry.event);
}

/** EventRow is one row of the audit-trail table, as drawn. */
export interface EventRow {
  number: string;
  time: string;
  type: string;
  details: string;
}

/** Block is one part of the page, in reading order; a section heading stays with the start of the block after it. */
export type Block =
  | { kind: "title"; title: string; subtitle: string }
  | { kind: "section"; title: string }
  | { kind: "field"; label: string; value: string; style: "regular" | "mono" }
  | { kind: "events"; note: string; rows: EventRow[] }
  | { kind: "paragraphs"; lines: string[] };

/** field is a labelled value within VALUE_LIMIT. */
function field(label: string, value: string, style: "regular" | "mono" = "regular"): Block {
  return { kind: "field", label, value: boundValue(value), style };
}

function documentBlocks(certificate: AuditCertificate): Block[] {
  const { rewrittenPdf } = certificate;
  return [
    { kind: "section", title: "Document" },
    ...(certificate.documentName ? [field("Title", certificate.documentName)] : []),
    field("SHA-256 as received", certificate.documentSha256, "mono"),
    ...(certificate.convertedPdfSha256 ? [field("SHA-256 of the PDF converted from it (signed)", certificate.convertedPdfSha256, "mono")] : []),
    ...(rewrittenPdf ? [field(`SHA-256 after Signet's rewrite (${rewrittenPdf.reason}; signed)`, rewrittenPdf.sha256, "mono")] : []),
    field("Pages", `${certificate.documentPages} (this certificate follows them)`),
    ...(certificate.eventId ? [field("Event ID", certificate.eventId)] : []),
  ];
}

/** signerBlocks are the signer and the signatures the document already carries. */
function signerBlocks(certificate: AuditCertificate): Block[] {
  const { signer } = certificate;
  const blocks: Block[] = [
    { kind: "section", title: "Signer" },
    field("Name", signer.name),
    field("E-mail", signer.email),
    ...(signer.ip ? [field("IP address", signer.ip)] : []),
    ...(signer.userAgent ? [field("User agent", signer.userAgent)] : []),
  ];
  const earlier = certificate.existingSignatures ?? [];
  if (earlier.length === 0) return blocks;
  blocks.push({ kind: "section", title: `Signatures already in the document (${earlier.length})` });
  for (const [index, signature] of earlier.entries()) {
    const when = signature.signedAt ? ` · ${formatUtc(signature.signedAt)} (as that signature states)` : "";
    blocks.push(field(`Signature ${index + 1}`, `${signature.signer || "unnamed signer"}${when}`));
  }
  return blocks;
}

/** PERMISSIONS says in words what each DocMDP permission lets change after a certification (ISO 32000-1 table 254). */
const PERMISSIONS: Record<1 | 2 | 3, string> = {
  1: "no changes: any change to the document invalidates the certification",
  2: "filling in form fields and adding signatures; any other change invalidates the certification",
  3: "filling in form fields, adding signatures and adding, changing or deleting annotations; any other change invalidates the certification",
};

function signatureBlocks(certificate: AuditCertificate): Block[] {
  const tsa = certificate.timestampAuthority;
  const certification = certificate.certification;
  return [
    { kind: "section", title: "Signature" },
    field("Signed at", `${formatUtc(certificate.signingTime)} (server clock)`),
    field("Standard", `PAdES baseline ${tsa ? "B-T" : "B-B"} (ETSI.CAdES.detached), SHA-256`),
    ...(certification
      ? [
          field("Certification", "This signature certifies the document (a certification signature, DocMDP)"),
          field(`Permitted changes (P=${certification.permission})`, PERMISSIONS[certification.permission]),
        ]
      : []),
    ...(tsa ? [field("Timestamp authority", tsa)] : []),
    field("Certificate subject", certificate.service.subject),
    field("Key", certificate.service.algorithm),
    field("Certificate SHA-256", certificate.service.fingerprint, "mono"),
  ];
}

function metadataBlocks(metadata: Record<string, unknown> | undefined): Block[] {
  if (!metadata || Object.keys(metadata).length === 0) return [];
  return [{ kind: "section", title: "Metadata" }, ...Object.entries(metadata).map(([key, value]) => field(key, formatValue(value)))];
}

/** eventRow is an event as its table row shows it: the time as given when it is not a date, "—" for no details. */
function eventRow(event: AuditEvent, index: number): EventRow {
  const at = new Date(event.timestamp);
  return {
    number: String(index + 1),
    time: Number.isNaN(at.getTime()) ? event.timestamp : formatUtc(at),
    type: event.type,
    details: summarizeData(event.data) || "—",
  };
}

function auditTrailBlocks(certificate: AuditCertificate): Block[] {
  const events = sortEvents(certificate.events);
  return [
    { kind: "section", title: `Audit trail (${events.length} event${events.length === 1 ? "" : "s"})` },
    { kind: "events", note: "Times as the client reported them, in UTC.", rows: events.map(eventRow) },
  ];
}

function verifyBlocks(certificate: AuditCertificate): Block[] {
  return [
    { kind: "section", title: "How to verify" },
    {
      kind: "paragraphs",
      lines: [
        "Send the signed PDF to POST /v1/verify of this service, or open it in a PDF reader that checks signatures.",
        `The signing certificate's SHA-256 must be ${certificate.service.fingerprint}.`,
        certificate.certification
          ? "A change the certification does not permit breaks it; this page is covered by the signature."
          : "Any change to the file after signing breaks the signature; this page is covered by it.",
      ],
    },
  ];
}

/**
 * certificateContent is what the page says, in order: the title, the document, signer and
 * signature details, the metadata, every audit event in time order and how to verify.
 */
export function certificateContent(certificate: AuditCertificate): Block[] {
  return [
    { kind: "title", title: "Audit Trail Certificate", subtitle: "Record of an electronic signature made with Signet" },
    ...documentBlocks(certificate),
    ...signerBlocks(certificate),
    ...signatureBlocks(certificate),
    ...metadataBlocks(certificate.metadata),
    ...auditTrailBlocks(certificate),
    ...verifyBlocks(certificate),
  ];
}

/** footerText is the line at the foot of every certificate page. */
export function footerText(certificate: AuditCertificate): string {
  return `Signet audit trail certificate · document SHA-256 ${certificate.documentSha256.slice(0, 16)}…`;
}

/** pageLabel is a page's "Page x of y" (index from 0). */
export function pageLabel(index: number, total: number): string {
  return `Page ${index + 1} of ${total}`;
}

import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";
import { pdfFieldValueSchema, pdfFormOptions } from "#http/contracts/pdf-form-fields.ts";
import { signatureLevels } from "#domain/verification/signature-level.ts";

/** levelDescription explains each PAdES level in one line (OpenAPI). */
const levelDescription = [
  "PAdES baseline level (ETSI EN 319 142-1); default B-T when a timestamp authority is configured (SIGNET_TSA_URL), else B-B; B-T and above without one is 422 LEVEL_UNAVAILABLE.",
  "B-B: the signature alone (signing time as claimed).",
  "B-T: plus an RFC 3161 timestamp proving when it was signed.",
  "B-LT: plus a DSS with the signer's and TSA's certificate chains and their OCSP responses or CRLs, so it validates after the certificates expire or their issuers go offline.",
  "B-LTA: plus a document timestamp over the whole file (with its own validation data), renewable with POST /v1/timestamp before its algorithms weaken.",
].join("\n");

/** auditEventSchema is one item of `auditTrail` (docs/api.md, "Sign and verify"). */
const auditEventSchema = z
  .strictObject({
    type: z.enum(["ready", "scroll", "field_change", "submit"]).meta({ description: "What happened; at least one event must be `submit`." }),
    timestamp: z.iso.datetime({ offset: true }).meta({ description: "When it happened, ISO-8601.", example: "2026-11-22T09:58:00Z" }),
    data: z.record(z.string(), z.unknown()).optional().meta({ description: "Free-form details, summarised on the certificate page." }),
  })
  .meta({ id: "AuditEvent" });

/** signerSchema is the `signer` member (docs/api.md, "Sign and verify"). */
const signerSchema = z
  .strictObject({
    email: z.email().max(254),
    name: z.string().trim().min(2).max(255),
    ip: z.union([z.ipv4(), z.ipv6()]).optional().meta({ description: "The signer's IPv4 or IPv6 address." }),
    userAgent: z.string().max(2048).optional(),
  })
  .meta({ id: "Signer" });

/** signRequestSchema is the body of POST /v1/sign. */
const signRequestSchema = z
  .strictObject({
    document: documentInputSchema,
    signer: signerSchema,
    auditTrail: z.array(auditEventSchema).min(1),
    eventId: z.string().min(1).max(255).optional(),
    metadata: z.record(z.string(), z.unknown()).optional().meta({ description: "Application context, printed on the certificate page (16 KB max)." }),
    certificate: z
      .strictObject({ enabled: z.boolean().default(true) })
      .optional()
      .meta({ description: "The audit trail certificate page; enabled by default." }),
    level: z.enum(signatureLevels).optional().meta({ description: levelDescription }),
    fields: z.array(pdfFieldValueSchema).optional().meta({
      description: "A PDF form's fields to fill before signing, as POST /v1/annotate takes them (the fill is its own incremental update, then the signature).",
    }),
    ...pdfFormOptions,
  })
  .meta({ id: "SignRequest" });

/** documentOutputSchema is the `document` member of sign and annotate answers. */
export const documentOutputSchema = z.object({
  base64: z.string(),
  contentType: z.string(),
});

/** signRoute: POST /v1/sign. */
export const signRoute = defineRoute({
  name: "sign",
  async: true,
  method: "POST",
  path: "/v1/sign",
  auth: true,
  idempotent: true,
  // A 25 MB document signs to a ~34 MB JSON answer: streamed, beyond Lambda's 6 MB buffered limit.
  streaming: true,
  tag: "Sign",
  summary: "Sign a PDF or DOCX",
  description:
    "Adds a PAdES baseline signature (`level`: B-B, B-T, B-LT or B-LTA; default B-T when a timestamp authority is configured, else B-B) as an incremental update, after appending an audit trail certificate page (sized like the last page). A PDF that already holds signatures gets no page (it would void them): the signature widget on its last page shows a compact audit stamp (invisible after a certification), and the complete audit trail is stored as JSON in the signature dictionary (/Signet_AuditRecord), covered by the signature. DOCX input is converted to PDF first. A PDF certified against changes (DocMDP P=1) is refused with 422 INVALID_DOCUMENT.",
  body: {
    kind: "json",
    schema: signRequestSchema,
    example: {
      document: { url: "https://example.com/contract.pdf" },
      signer: { name: "Ada Lovelace", email: "ada@example.com", ip: "203.0.113.7", userAgent: "Mozilla/5.0" },
      auditTrail: [
        { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
        { type: "field_change", timestamp: "2026-11-22T09:57:00Z", data: { field: "name", value: "Ada Lovelace" } },
        { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
      ],
      eventId: "evt_123",
      metadata: { contract: "C-42" },
    },
  },
  success: {
    description: "The signed PDF, plain base64.",
    contentType: "application/json",
    schema: z.object({ document: documentOutputSchema }).meta({ id: "SignResponse" }),
  },
  errors: [
    "INVALID_DOCUMENT",
    "ENCRYPTED_DOCUMENT",
    "MISSING_SUBMIT_EVENT",
    "PAYLOAD_TOO_LARGE",
    "IMAGE_TOO_LARGE",
    "FETCH_FAILED",
    "TSA_FAILED",
    "LEVEL_UNAVAILABLE",
    "FIELD_NOT_FOUND",
    "FIELD_TYPE_MISMATCH",
    "FIELD_READ_ONLY",
    "INVALID_FIELD_VALUE",
    "XFA_FORM",
    "SIGNED_DOCUMENT",
    "CONVERSION_TIMEOUT",
    "CONVERSION_FAILED",
    "RATE_LIMIT_ERROR",
  ],
});

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

/** certifySchema is the `certify` member: a certification signature (DocMDP) and what it permits after it. */
const certifySchema = z
  .strictObject({
    permissions: z
      .union([z.literal(1), z.literal(2), z.literal(3)])
      .meta({ description: "DocMDP P: 1 no changes at all; 2 filling form fields and signing; 3 also annotations." }),
  })
  .meta({
    id: "Certify",
    description:
      "Makes this a certification signature (ISO 32000-1 12.8.2.2, DocMDP): only on a document without signatures (else 422 CERTIFICATION_NOT_FIRST). Later changes beyond `permissions` void it (pyHanko and /v1/verify agree).",
  });

/** signatureFieldSchema is the `signatureField` member: where the visible signature goes and what it shows. */
const signatureFieldSchema = z
  .strictObject({
    name: z.string().min(1).max(255).optional().meta({
      description:
        "An existing empty signature field's fully qualified name (alone); or, with page and rect, the new field's name (no dots). A field with a /Lock (FieldMDP): the signature records it, and afterwards the fields it locks cannot change (409 WOULD_INVALIDATE_SIGNATURES; docs/api.md, Field locks).",
    }),
    page: z.int().min(1).max(100_000).optional().meta({ description: "The page of a new field, from 1." }),
    rect: z
      .tuple([z.number(), z.number(), z.number(), z.number()])
      .optional()
      .meta({
        description: "The new field's rectangle [x1, y1, x2, y2] in points (1/72 in), from the page's lower left corner; inside the page.",
        example: [360, 60, 560, 120],
      }),
    reason: z.string().min(1).max(500).optional().meta({ description: "Shown in the appearance and written to /Reason." }),
    location: z.string().min(1).max(255).optional().meta({ description: "Shown in the appearance and written to /Location." }),
    image: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "A picture drawn left of the text: PNG, JPEG, WebP or SVG as a data URI or https URL (annotate's limits)." }),
    lock: z
      .strictObject({
        action: z.enum(["all", "include", "exclude"]),
        fields: z.array(z.string().min(1).max(1000)).min(1).max(1000).optional(),
      })
      .optional()
      .meta({
        description:
          "A new field's /Lock (FieldMDP): the fields this signature locks, all of them, the listed ones (include) or all but the listed ones (exclude), by fully qualified name; afterwards they cannot change (docs/api.md, Field locks).",
        example: { action: "include", fields: ["applicant.name"] },
      }),
  })
  .refine((field) => (field.page === undefined) === (field.rect === undefined), { message: "give page and rect together" })
  .refine((field) => field.page !== undefined || field.name !== undefined, { message: "give name, or page and rect" })
  .refine((field) => field.page === undefined || !field.name?.includes("."), { message: "a new field's name has no dots", path: ["name"] })
  .refine((field) => field.lock === undefined || field.page !== undefined, { message: "a lock goes on a new field (page and rect)", path: ["lock"] })
  .refine((field) => field.lock === undefined || (field.lock.action === "all") === (field.lock.fields === undefined), {
    message: "include and exclude take fields; all takes none",
    path: ["lock", "fields"],
  })
  .meta({
    id: "SignatureField",
    description:
      "A visible signature: signer name, signing date (UTC), reason, location and an optional picture, drawn in an existing empty signature field (`name`) or a new one (`page`, `rect`). Without it the signature is invisible.",
  });

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
    certify: certifySchema.optional(),
    signatureField: signatureFieldSchema.optional(),
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
    'Adds a PAdES baseline signature (`level`: B-B, B-T, B-LT or B-LTA; default B-T when a timestamp authority is configured, else B-B) as an incremental update, after appending an audit trail certificate page (sized like the last page). A PDF that already holds signatures gets no page (it would void them): the signature widget on its last page shows a compact audit stamp (invisible after a certification), and the complete audit trail is stored as JSON in the signature dictionary (/Signet_AuditRecord), covered by the signature. DOCX input is converted to PDF first. A PDF certified against changes (DocMDP P=1) is refused with 422 INVALID_DOCUMENT. `certify` makes the signature a certification (DocMDP, first signature only); `signatureField` makes it visible, in an existing empty signature field or a new one on a page (docs/api.md, "Certify and visible signatures").',
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
    "WRONG_PASSWORD",
    "CERTIFICATION_NOT_FIRST",
    "FIELD_NOT_FOUND",
    "FIELD_TYPE_MISMATCH",
    "FIELD_ALREADY_SIGNED",
    "FIELD_PLACEMENT",
    "INVALID_IMAGE",
    "MISSING_SUBMIT_EVENT",
    "PAYLOAD_TOO_LARGE",
    "IMAGE_TOO_LARGE",
    "FETCH_FAILED",
    "TSA_FAILED",
    "LEVEL_UNAVAILABLE",
    "FIELD_READ_ONLY",
    "INVALID_FIELD_VALUE",
    "XFA_FORM",
    "WOULD_INVALIDATE_SIGNATURES",
    "CONVERSION_TIMEOUT",
    "CONVERSION_FAILED",
    "RATE_LIMIT_ERROR",
  ],
});

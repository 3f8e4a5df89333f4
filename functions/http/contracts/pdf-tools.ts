import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";

// The members and answers every PDF tool shares (docs/api.md, "PDF tools").

const dropSignatures = z.boolean().optional().meta({
  description:
    "A signed input is refused with 409 WOULD_INVALIDATE_SIGNATURES, since the tool rewrites it and every signature would break. With true, the signatures are removed first (each field stays as an empty signature field) and the answer's Signet-Dropped-Signatures header and droppedSignatures name them.",
});

const pageRanges = z.string().min(1).max(10_000).meta({
  description: 'Pages, 1-based and inclusive: "1-3,7,9-" ("9-" to the end, "last", "last-1"); a range may run backwards ("5-1").',
  example: "1-3,7,9-",
});

const renamedSchema = z.array(z.object({ from: z.string(), to: z.string() }));

/** pdfToolResponseSchema is the answer of merge and pages: the PDF as sign answers it, and what the tool did besides. */
const pdfToolResponseSchema = z
  .object({
    document: z.object({ base64: z.string(), contentType: z.literal("application/pdf") }),
    pageCount: z.number().int(),
    droppedSignatures: z
      .array(z.string())
      .meta({ description: 'The signatures removed (dropSignatures: true); in a merge each is prefixed with its input\'s position, "2:Signature1".' }),
    renamedFields: renamedSchema.meta({ description: "Top-level form fields renamed because an earlier input had the name (name -> name#2)." }),
    renamedDestinations: renamedSchema.meta({ description: "Named destinations renamed the same way (links to them follow)." }),
  })
  .meta({ id: "PdfToolResponse" });

const toolErrors = [
  "INVALID_DOCUMENT",
  "ENCRYPTED_DOCUMENT",
  "WRONG_PASSWORD",
  "WOULD_INVALIDATE_SIGNATURES",
  "PAYLOAD_TOO_LARGE",
  "FETCH_FAILED",
  "RATE_LIMIT_ERROR",
] as const;

/** mergeRoute: POST /v1/merge. */
export const mergeRoute = defineRoute({
  name: "merge",
  method: "POST",
  path: "/v1/merge",
  auth: true,
  idempotent: true,
  streaming: true, // 200 inputs make a PDF far above Lambda's 6 MB buffered limit
  tag: "PDF tools",
  summary: "Merge PDFs (and DOCX) into one PDF",
  description:
    'Joins 2 to SIGNET_MERGE_MAX_INPUTS (200) documents in order, each with its own page ranges; a DOCX is converted first. Each input\'s bookmarks go under one bookmark named after it (`title`, else "Document N"); named destinations and form fields are kept, and a top-level field or destination name an earlier input already has is renamed `name#2` (`renamedFields`, `renamedDestinations`). Not carried over: tags (structure tree), XFA, JavaScript, attachments, page labels, metadata. All inputs together may hold SIGNET_MERGE_MAX_TOTAL_BYTES (100 MB); the result at most SIGNET_MAX_PDF_PAGES pages. An encrypted input opens with its own `document.password`; the merged PDF is not encrypted.',
  body: {
    kind: "json",
    schema: z
      .strictObject({
        documents: z
          .array(
            z.strictObject({
              document: documentInputSchema,
              pages: pageRanges.optional(),
              title: z.string().min(1).max(500).optional().meta({ description: 'The bookmark holding this input\'s bookmarks (default "Document N").' }),
            }),
          )
          .min(2),
        dropSignatures,
      })
      .meta({ id: "MergeRequest" }),
    example: {
      documents: [
        { document: { url: "https://example.com/contract.pdf" }, title: "Contract" },
        { document: { url: "https://example.com/annex.pdf" }, pages: "1-3", title: "Annex" },
      ],
    },
  },
  success: { description: "The merged PDF.", contentType: "application/json", schema: pdfToolResponseSchema },
  errors: [...toolErrors, "CONVERSION_TIMEOUT", "CONVERSION_FAILED"],
});

/** splitUploadsResponseSchema is split's answer with `output: "uploads"`: each part an upload id of the caller's key. */
const splitUploadsResponseSchema = z
  .object({
    parts: z.array(
      z.object({
        upload: z.string().meta({ description: "The part's upload id: pass it as document.upload (with the same API key) to sign, verify, stamp, merge..." }),
        pages: z.array(z.number().int()).meta({ description: "The part's pages in the input, 1-based, in the part's order." }),
        pageCount: z.number().int(),
        bytes: z.number().int(),
        expiresAt: z
          .string()
          .meta({ description: "Until when the id may be used (SIGNET_UPLOAD_TTL_SECONDS after the split); a use that succeeds consumes it." }),
      }),
    ),
    droppedSignatures: z.array(z.string()).meta({ description: "The signatures removed (dropSignatures: true)." }),
  })
  .meta({ id: "SplitUploadsResponse", description: 'With output "uploads": the parts, in order, each kept as an upload of the calling API key.' });

/** splitRoute: POST /v1/split. */
export const splitRoute = defineRoute({
  name: "split",
  method: "POST",
  path: "/v1/split",
  auth: true,
  idempotent: true,
  streaming: true,
  tag: "PDF tools",
  summary: "Split a PDF into parts",
  description:
    'Cuts a PDF into one part per range (`ranges`) or a part every `every` pages, and answers a zip of PDFs named part-001.pdf, part-002.pdf, ... With `output: "uploads"` each part is kept as an upload of the calling API key instead, and the answer (JSON) lists per part its upload id, pages, size and expiry: pass an id as `document.upload` to sign, verify, stamp, merge... with the same key (another key gets 404). Each part keeps the bookmarks, named destinations and form fields of its pages. At most SIGNET_SPLIT_MAX_PARTS (1,000) parts; with uploads each part at most the document limit (25 MB). An encrypted input opens with `document.password`; the parts are not encrypted.',
  body: {
    kind: "json",
    schema: z
      .strictObject({
        document: documentInputSchema,
        ranges: z.array(pageRanges).min(1).optional().meta({ description: "One part per item." }),
        every: z.number().int().min(1).optional().meta({ description: "A part every this many pages (the last may be shorter)." }),
        output: z
          .enum(["zip", "uploads"])
          .optional()
          .meta({ description: '"zip" (the default): one zip of the parts. "uploads": each part kept as an upload of your API key, listed in a JSON answer.' }),
        dropSignatures,
      })
      .refine((body) => (body.ranges === undefined) !== (body.every === undefined), { message: "give exactly one of ranges or every", path: ["ranges"] })
      .meta({ id: "SplitRequest" }),
    example: { document: { url: "https://example.com/bundle.pdf" }, ranges: ["1-2", "3-"] },
  },
  success: {
    description: 'A zip of the parts (part-001.pdf, ...), in order; with output "uploads", the parts\' upload ids (JSON).',
    contentType: "application/zip",
    alternative: {
      contentType: "application/json",
      schema: splitUploadsResponseSchema,
      example: {
        parts: [
          { upload: "upl_tl3k2c_9f86d081884c7d65_Jp5GkXc0uZL3VQn0f3WbqA", pages: [1, 2], pageCount: 2, bytes: 48211, expiresAt: "2026-11-28T11:00:00.000Z" },
          { upload: "upl_tl3k2c_9f86d081884c7d65_0xQz7m1sYb2c8dVx4NwEeg", pages: [3], pageCount: 1, bytes: 30127, expiresAt: "2026-11-28T11:00:00.000Z" },
        ],
        droppedSignatures: [],
      },
    },
  },
  errors: [...toolErrors, "SERVICE_UNAVAILABLE"],
});

const operationSchema = z
  .discriminatedUnion("op", [
    z.strictObject({ op: z.literal("select"), pages: pageRanges.meta({ description: "The pages to keep, in this order (a page may repeat)." }) }),
    z.strictObject({ op: z.literal("reorder"), order: pageRanges.meta({ description: "Every page once, in the new order." }) }),
    z.strictObject({
      op: z.literal("rotate"),
      pages: pageRanges,
      degrees: z.union([z.literal(90), z.literal(180), z.literal(270)]).meta({ description: "Clockwise, added to the page's rotation." }),
    }),
    z.strictObject({ op: z.literal("delete"), pages: pageRanges }),
  ])
  .meta({ id: "PageOperation" });

/** pagesRoute: POST /v1/pages. */
export const pagesRoute = defineRoute({
  name: "pages",
  method: "POST",
  path: "/v1/pages",
  auth: true,
  idempotent: true,
  streaming: true,
  tag: "PDF tools",
  summary: "Select, reorder, rotate and delete pages",
  description:
    "Applies `operations` in order, each to the pages as the ones before left them (page numbers count in the current order), and answers one PDF. Bookmarks, named destinations and form fields of the kept pages stay. An encrypted input opens with `document.password`; the result is not encrypted.",
  body: {
    kind: "json",
    schema: z
      .strictObject({ document: documentInputSchema, operations: z.array(operationSchema).min(1).max(100), dropSignatures })
      .meta({ id: "PagesRequest" }),
    example: {
      document: { url: "https://example.com/scan.pdf" },
      operations: [
        { op: "delete", pages: "2" },
        { op: "rotate", pages: "1-", degrees: 90 },
        { op: "reorder", order: "last-1" },
      ],
    },
  },
  success: { description: "The resulting PDF.", contentType: "application/json", schema: pdfToolResponseSchema },
  errors: [...toolErrors],
});

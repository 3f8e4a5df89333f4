import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";
import { documentOutputSchema } from "#http/contracts/sign.ts";

const password = (description: string) => z.string().min(1).max(127).meta({ description });

const allowed = (what: string) =>
  z
    .boolean()
    .optional()
    .meta({ description: `${what} (default true).` });

/** permissionsSchema is what a reader opening a protected PDF with the user password may do (ISO 32000-2 table 22). */
const permissionsSchema = z
  .strictObject({
    print: allowed("Print"),
    printHighQuality: allowed("Print at full resolution (false: a degraded print only)"),
    modify: allowed("Change the content"),
    copy: allowed("Copy or extract text and graphics"),
    annotate: allowed("Add or change annotations, fill forms"),
    fillForms: allowed("Fill existing form fields, also when annotate is false"),
    accessibility: allowed("Extract text and graphics for accessibility"),
    assemble: allowed("Insert, rotate or delete pages, make bookmarks and thumbnails"),
  })
  .meta({ id: "PdfPermissions", description: "What the user password allows; the owner password allows everything. Omitted permissions are allowed." });

const dropSignaturesSchema = z
  .boolean()
  .optional()
  .meta({ description: "On a signed PDF: remove its signatures (the answer lists them) instead of answering 409 WOULD_INVALIDATE_SIGNATURES." });

/** toolResponseSchema is the answer of protect and unprotect: the rewritten PDF and the signatures removed. */
const toolResponseSchema = (id: string) =>
  z
    .object({
      document: documentOutputSchema,
      droppedSignatures: z.array(z.string()).meta({ description: "The signature fields whose signatures were removed (dropSignatures)." }),
    })
    .meta({ id });

const errors = ["INVALID_DOCUMENT", "ENCRYPTED_DOCUMENT", "WRONG_PASSWORD", "WOULD_INVALIDATE_SIGNATURES", "PAYLOAD_TOO_LARGE", "FETCH_FAILED"] as const;

/** protectRoute: POST /v1/protect encrypts a PDF with passwords and permissions (docs/api.md, "Passwords"). */
export const protectRoute = defineRoute({
  name: "protect",
  async: true,
  method: "POST",
  path: "/v1/protect",
  auth: true,
  idempotent: true,
  streaming: true, // a 25 MB PDF comes back as a ~34 MB JSON answer, over Lambda's 6 MB buffered limit
  tag: "PDF tools",
  summary: "Encrypt a PDF with a password (AES-256)",
  description:
    "Rewrites the PDF encrypted with AES-256 (ISO 32000-2, security handler revision 6; Signet writes no RC4 or AES-128), with an owner password and, optionally, a user password that opening it requires, and the permissions a user-password reader has. An encrypted input needs its password in document.password (the owner's, or a user password whose permissions allow changes). A signed input is 409 WOULD_INVALIDATE_SIGNATURES unless dropSignatures.",
  body: {
    kind: "json",
    schema: z
      .strictObject({
        document: documentInputSchema,
        ownerPassword: password("The owner password: full access, and changing or removing the protection."),
        userPassword: password("The password that opens the PDF; without one anyone may open it and the permissions apply.").optional(),
        permissions: permissionsSchema.optional(),
        dropSignatures: dropSignaturesSchema,
      })
      .refine((body) => body.userPassword !== body.ownerPassword, {
        message: "userPassword and ownerPassword must differ (the owner password would open the file with every permission)",
        path: ["userPassword"],
      })
      .meta({ id: "ProtectRequest" }),
    example: {
      document: { base64: "JVBERi0xLjcK..." },
      ownerPassword: "owner-secret",
      userPassword: "open-sesame",
      permissions: { copy: false, modify: false },
    },
  },
  success: { description: "The encrypted PDF, plain base64.", contentType: "application/json", schema: toolResponseSchema("ProtectResponse") },
  errors: [...errors],
});

/** unprotectRoute: POST /v1/unprotect removes a PDF's encryption. */
export const unprotectRoute = defineRoute({
  name: "unprotect",
  async: true,
  method: "POST",
  path: "/v1/unprotect",
  auth: true,
  idempotent: true,
  streaming: true, // a 25 MB PDF comes back as a ~34 MB JSON answer, over Lambda's 6 MB buffered limit
  tag: "PDF tools",
  summary: "Remove a PDF's password",
  description:
    "Rewrites an encrypted PDF without encryption. document.password is the owner password, or the user password when the permissions allow changes; a PDF with an owner password only opens without one (then its permissions must allow changes). An unencrypted PDF comes back rewritten. A signed input is 409 WOULD_INVALIDATE_SIGNATURES unless dropSignatures.",
  body: {
    kind: "json",
    schema: z.strictObject({ document: documentInputSchema, dropSignatures: dropSignaturesSchema }).meta({ id: "UnprotectRequest" }),
    example: { document: { base64: "JVBERi0xLjcK...", password: "owner-secret" } },
  },
  success: { description: "The PDF without encryption, plain base64.", contentType: "application/json", schema: toolResponseSchema("UnprotectResponse") },
  errors: [...errors],
});

import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";
import { documentOutputSchema } from "#http/contracts/sign.ts";

/** timestampRoute: POST /v1/timestamp (B-LTA extension and renewal). */
export const timestampRoute = defineRoute({
  name: "timestamp",
  async: true,
  method: "POST",
  path: "/v1/timestamp",
  auth: true,
  idempotent: true,
  tag: "Sign",
  summary: "Add a document timestamp to a signed PDF (B-LTA renewal)",
  description:
    "Appends, as incremental updates, current validation data (certificates, OCSP responses or CRLs, VRI) for every signature and timestamp in the PDF, a fresh document timestamp (SubFilter ETSI.RFC3161) over the whole file from the configured timestamp authority, and that timestamp's own validation data. Every earlier signature stays valid; the result is PAdES B-LTA. Repeat before the last timestamp's certificate expires or its algorithms weaken. An encrypted PDF (opened with `document.password`, or without one when it has only an owner password) stays encrypted: each update is encrypted with its key. Needs SIGNET_TSA_URL (422 LEVEL_UNAVAILABLE otherwise); a validation source that cannot be fetched is 502 FETCH_FAILED naming its URL.",
  body: {
    kind: "json",
    schema: z.strictObject({ document: documentInputSchema }).meta({ id: "TimestampRequest" }),
    example: { document: { url: "https://example.com/signed.pdf" } },
  },
  success: {
    description: "The timestamped PDF, plain base64.",
    contentType: "application/json",
    schema: z.object({ document: documentOutputSchema }).meta({ id: "TimestampResponse" }),
  },
  errors: [
    "INVALID_DOCUMENT",
    "ENCRYPTED_DOCUMENT",
    "WRONG_PASSWORD",
    "PAYLOAD_TOO_LARGE",
    "FETCH_FAILED",
    "TSA_FAILED",
    "LEVEL_UNAVAILABLE",
    "RATE_LIMIT_ERROR",
  ],
});

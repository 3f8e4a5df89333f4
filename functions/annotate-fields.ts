import { config } from "#config";
import { safeFetcher } from "#wiring/fetch.ts";
import { resolveDocument } from "#domain/shared/document.ts";
import { describeFields } from "#domain/docx/annotate.ts";
import { annotateFieldsRoute } from "#http/contracts/annotate.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { uploadDeps } from "#wiring/uploads.ts";

const uploads = uploadDeps();

/** handler answers POST /v1/annotate/fields: the content controls and {{placeholders}} a template offers. */
export const handler = httpHandler(annotateFieldsRoute, async (req) => {
  const input = await uploadedDocument(req.body.document, req.principal, uploads);
  const document = await resolveDocument(input.document, ["docx"], { fetcher: safeFetcher(), limits: config.documentLimits });
  const fields = await describeFields(document.bytes, config.limits);
  await input.consumed();
  return json(200, fields);
});

import { config } from "#config";
import { safeFetcher } from "#wiring/fetch.ts";
import { resolveDocument } from "#domain/shared/document.ts";
import { DOCX_CONTENT_TYPE, checkFieldCount, fillTemplate } from "#domain/docx/annotate.ts";
import { annotateRoute } from "#http/contracts/annotate.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { converter, intakeLimits } from "#wiring/conversion.ts";
import { intake } from "#domain/documents/intake.ts";
import { pictures } from "#wiring/pictures.ts";
import { uploadDeps } from "#wiring/uploads.ts";

const { limits } = config;
const uploads = uploadDeps();

/** handler answers POST /v1/annotate: a DOCX template and fields in, the filled DOCX (or its PDF) out as a data URI. */
export const handler = httpHandler(annotateRoute, async (req) => {
  checkFieldCount(req.body.fields.length, limits.maxFields);
  const input = await uploadedDocument(req.body.document, req.principal, uploads);
  const document = await resolveDocument(input.document, ["docx"], { fetcher: safeFetcher(), limits: config.documentLimits });
  const docx = await fillTemplate(document.bytes, req.body.fields, { fetcher: safeFetcher(), limits, pictures: pictures() }, req.body.data);
  const pdf = req.query.to === "pdf";
  // A filled template may exceed the upload limit by the images it was given (as in the office function).
  const filled = { ...intakeLimits(), maxDocumentBytes: limits.maxDocumentBytes + limits.maxTotalImageBytes };
  const output = pdf ? await converter().convert(await intake(docx, "docx", filled), { to: "pdf" }) : docx;
  const contentType = pdf ? "application/pdf" : DOCX_CONTENT_TYPE;
  await input.consumed();
  return json(200, { document: { base64: `data:${contentType};base64,${output.toString("base64")}`, contentType } });
});

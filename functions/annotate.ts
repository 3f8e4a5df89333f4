import { resolveDocument } from "#domain/shared/document.ts";
import { DOCX_CONTENT_TYPE, checkFieldCount, fillTemplate } from "#domain/docx/annotate.ts";
import { intake } from "#domain/documents/intake.ts";
import { pdfFieldValues, templateFields } from "#domain/pdf-forms/field-values.ts";
import { fillPdfForm } from "#domain/pdf-forms/fill-form.ts";
import { annotateRoute } from "#http/contracts/annotate.ts";
import { jobTimeLimit } from "#http/jobs.ts";
import { json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";
import { converter, intakeLimits } from "#wiring/conversion.ts";
import { pictures } from "#wiring/pictures.ts";
import { safeFetcher } from "#wiring/fetch.ts";
import { signing } from "#wiring/signing.ts";

const dataUri = (contentType: string, bytes: Buffer) => ({ document: { base64: `data:${contentType};base64,${bytes.toString("base64")}`, contentType } });

/** makeAnnotateHandler builds POST /v1/annotate on a container: a DOCX template (or a PDF form) and fields in, the filled DOCX (or its PDF, or the filled PDF) out as a data URI. */
export function makeAnnotateHandler(container: Container) {
  const { config } = container;
  const { limits } = config;
  // Read when annotate is made (Lambda's init, the local server's start): a bad picture setting
  // stops the start with its configuration error instead of failing the first picture.
  void config.pictures;
  const uploads = uploadDeps(container);
  // A filled template may exceed the upload limit by the images it was given (as in the office function).
  const filled = { ...intakeLimits(config), maxDocumentBytes: limits.maxDocumentBytes + limits.maxTotalImageBytes };
  return httpHandler(container, annotateRoute, async (req) => {
    const { body } = req;
    checkFieldCount(body.fields.length, limits.maxFields);
    const input = await uploadedDocument(body.document, req.principal, uploads);
    const fetcher = safeFetcher(container);
    const document = await resolveDocument(input.document, ["docx", "pdf"], { fetcher, limits: config.documentLimits });
    if (document.type === "pdf") {
      const request = { fields: pdfFieldValues(body.fields), flatten: body.flatten, dropXfa: body.dropXfa };
      const pdf = await fillPdfForm(document.bytes, request, { fonts: signing(container).fontFiles, maxPages: limits.maxPdfPages });
      await input.consumed();
      return json(200, dataUri("application/pdf", pdf));
    }
    // The template's zip directory, read once by resolveDocument, is handed on (not read again).
    const docx = await fillTemplate(document.zip ?? document.bytes, templateFields(body.fields), { fetcher, limits, pictures: pictures(container) }, body.data);
    const pdf = req.query.to === "pdf";
    const output = pdf ? await converter(container).convert(await intake(docx, "docx", filled), { to: "pdf", ...jobTimeLimit(req.jobDeadline) }) : docx;
    await input.consumed();
    return json(200, dataUri(pdf ? "application/pdf" : DOCX_CONTENT_TYPE, output));
  });
}

/** handler answers POST /v1/annotate with this process's container. */
export const handler = makeAnnotateHandler(processContainer());

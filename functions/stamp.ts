import { resolveDocument } from "#domain/shared/document.ts";
import { stampPdf } from "#domain/pdf-tools/stamp.ts";
import { stampRoute } from "#http/contracts/pdf-stamp.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { safeFetcher } from "#wiring/fetch.ts";
import { httpHandler } from "#wiring/http.ts";
import { pictures } from "#wiring/pictures.ts";
import { signing } from "#wiring/signing.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeStampHandler builds POST /v1/stamp on a container: text and/or a picture on chosen pages of a PDF (docs/api.md, "Stamp and watermark"). */
export function makeStampHandler(container: Container) {
  const { config } = container;
  const { limits } = config;
  void config.pictures; // a bad picture setting stops the start, not the first stamp (as annotate)
  const uploads = uploadDeps(container);
  const fonts = signing(container).fontFiles;
  return httpHandler(container, stampRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const fetcher = safeFetcher(container);
    const document = await resolveDocument(input.document, ["pdf"], { fetcher, limits: config.documentLimits });
    const images = { fetcher, maxImageBytes: limits.maxImageBytes, maxImagePixels: limits.maxImagePixels, pictures: pictures(container) };
    const { text, document: _document, ...rest } = req.body;
    const request = { ...rest, ...(text ? { text: { ...text, color: rgb(text.color) } } : {}) };
    const result = await stampPdf(document.bytes, request, { fonts, images, maxPages: limits.maxPdfPages }, input.document.password);
    await input.consumed();
    return json(200, {
      document: { base64: base64Text(result.pdf), contentType: "application/pdf" },
      mode: result.mode,
      pages: result.pages,
      droppedSignatures: result.droppedSignatures,
    });
  });
}

/** rgb reads "#RRGGBB" into components 0..1. */
function rgb(hex: string): [number, number, number] {
  return [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255) as [number, number, number];
}

/** handler answers POST /v1/stamp with this process's container. */
export const handler = makeStampHandler(processContainer());

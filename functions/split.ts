import { droppedSignaturesHeader } from "#domain/pdf-tools/signatures.ts";
import { openSource, resolvePdfInput } from "#domain/pdf-tools/source.ts";
import { splitParts } from "#domain/pdf-tools/split.ts";
import { ZipWriter } from "#domain/shared/zip-container.ts";
import { splitRoute } from "#http/contracts/pdf-tools.ts";
import { attachmentDisposition, binary } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { pdfToolDependencies } from "#wiring/pdf-tools.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeSplitHandler builds POST /v1/split on a container: one PDF in, a zip of its parts out. */
export function makeSplitHandler(container: Container) {
  const dependencies = pdfToolDependencies(container);
  const uploads = uploadDeps(container);
  return httpHandler(container, splitRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const { bytes } = await resolvePdfInput(input.document, dependencies);
    const source = await openSource(bytes, {
      field: "document",
      dropSignatures: req.body.dropSignatures,
      maxPages: dependencies.tools.maxPdfPages,
      password: input.document.password,
    });
    const request = req.body.every === undefined ? { ranges: req.body.ranges ?? [] } : { every: req.body.every };
    // Each part goes into the zip (compressed) before the next is made: the parts are never all held.
    // Level 1: a PDF's streams are mostly compressed already; deflating them harder costs CPU for little.
    const zip = new ZipWriter({ level: 1 });
    let index = 0;
    for await (const part of splitParts(source, request, dependencies.tools)) {
      await zip.add({ name: `part-${String(++index).padStart(3, "0")}.pdf`, data: part.pdf });
    }
    await input.consumed();
    return binary(200, zip.finish(), "application/zip", {
      "Content-Disposition": attachmentDisposition("parts.zip"),
      ...droppedSignaturesHeader(source.dropped),
    });
  });
}

/** handler answers POST /v1/split with this process's container. */
export const handler = makeSplitHandler(processContainer());

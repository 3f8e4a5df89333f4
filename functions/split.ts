import { droppedSignaturesHeader } from "#domain/pdf-tools/signatures.ts";
import { openSource, resolvePdfInput } from "#domain/pdf-tools/source.ts";
import { type SplitPart, splitParts } from "#domain/pdf-tools/split.ts";
import { storeUploads } from "#domain/shared/upload.ts";
import { ZipWriter } from "#domain/shared/zip-container.ts";
import { splitRoute } from "#http/contracts/pdf-tools.ts";
import { splitUploadsAnswer } from "#http/pdf-tool-answer.ts";
import { attachmentDisposition, binary } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { pdfToolDependencies } from "#wiring/pdf-tools.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeSplitHandler builds POST /v1/split on a container: one PDF in, a zip of its parts out (or, with output "uploads", the parts kept as uploads of the caller). */
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
    const parts = splitParts(source, request, dependencies.tools);
    if (req.body.output === "uploads") {
      // All or none (storeUploads): every part is made first, each copied to its own size (libpdf's
      // output is a view into its larger write buffer, which would stay alive with it).
      const made: SplitPart[] = [];
      for await (const part of parts) made.push({ ...part, pdf: part.pdf.slice() });
      const stored = await storeUploads(
        req.principal!.keyId,
        made.map((part) => part.pdf),
        uploads,
      );
      await input.consumed();
      return splitUploadsAnswer(made, stored, source.dropped);
    }
    // Each part goes into the zip (compressed) before the next is made: the parts are never all held.
    // Level 1: a PDF's streams are mostly compressed already; deflating them harder costs CPU for little.
    const zip = new ZipWriter({ level: 1 });
    let index = 0;
    for await (const part of parts) await zip.add({ name: `part-${String(++index).padStart(3, "0")}.pdf`, data: part.pdf });
    await input.consumed();
    return binary(200, await zip.finish(), "application/zip", {
      "Content-Disposition": attachmentDisposition("parts.zip"),
      ...droppedSignaturesHeader(source.dropped),
    });
  });
}

/** handler answers POST /v1/split with this process's container. */
export const handler = makeSplitHandler(processContainer());

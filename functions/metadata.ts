import { resolveDocument } from "#domain/shared/document.ts";
import { readMetadata, writeMetadata } from "#domain/pdf-tools/metadata.ts";
import { metadataRoute } from "#http/contracts/pdf-metadata.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { safeFetcher } from "#wiring/fetch.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeMetadataHandler builds POST /v1/metadata on a container: read a PDF's Info and XMP, or write them kept in step (docs/api.md, "Metadata"). */
export function makeMetadataHandler(container: Container) {
  const { config } = container;
  const uploads = uploadDeps(container);
  return httpHandler(container, metadataRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const document = await resolveDocument(input.document, ["pdf"], { fetcher: safeFetcher(container), limits: config.documentLimits });
    const maxPages = config.limits.maxPdfPages;
    const { set, xmp, dropSignatures } = req.body;
    if (set === undefined && xmp === undefined) {
      const { password } = input.document;
      const metadata = readMetadata(document.bytes, maxPages, password);
      await input.consumed();
      return json(200, { metadata });
    }
    const written = await writeMetadata(
      document.bytes,
      { set: set ?? {}, xmp, dropSignatures },
      { maxPages, now: new Date(), password: input.document.password },
    );
    await input.consumed();
    return json(200, {
      metadata: written.metadata,
      document: { base64: base64Text(written.pdf), contentType: "application/pdf" },
      incremental: written.incremental,
      droppedSignatures: written.droppedSignatures,
    });
  });
}

/** handler answers POST /v1/metadata with this process's container. */
export const handler = makeMetadataHandler(processContainer());

import { resolveDocument, type DocumentLimits } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import type { Timestamper } from "#domain/signing/cades-signature.ts";
import { addLongTermValidation } from "#domain/signing/ltv.ts";
import { hasSignatures, loadPdf } from "#domain/signing/pades-signer.ts";

/** TimestampDependencies are the outside parts a B-LTA renewal uses. */
export interface TimestampDependencies {
  /** Resolves document.url. */
  fetcher: Fetcher;
  /** Fetches OCSP responses and CRLs. */
  revocationFetcher: Fetcher;
  /** The configured TSA; absent: LEVEL_UNAVAILABLE. */
  timestamper?: Timestamper | undefined;
  limits: DocumentLimits;
}

/**
 * timestampDocument runs POST /v1/timestamp: to a signed PDF it appends current validation data
 * for every signature and timestamp already in it, a fresh document timestamp (ETSI.RFC3161)
 * over the whole file, and that timestamp's own validation data, each an incremental update, so
 * every earlier signature stays valid (PAdES B-LTA, and its renewal before algorithms weaken).
 */
export async function timestampDocument(
  input: { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined; password?: string | undefined },
  deps: TimestampDependencies,
): Promise<Buffer> {
  if (!deps.timestamper) {
    throw new SignetError("LEVEL_UNAVAILABLE", "A document timestamp needs a timestamp authority, and none is configured: set SIGNET_TSA_URL.");
  }
  const document = await resolveDocument(input, ["pdf"], { fetcher: deps.fetcher, limits: deps.limits });
  const { file } = await loadPdf(document.bytes, deps.limits.maxPdfPages, input.password);
  if (!hasSignatures(file)) {
    throw new SignetError("INVALID_DOCUMENT", "The PDF holds no signature to timestamp; sign it first (level B-LTA adds the document timestamp at once).");
  }
  // An encrypted PDF stays encrypted: each update is encrypted with its key (the timestamp's /Contents in the clear).
  return addLongTermValidation(document.bytes, {
    fetcher: deps.revocationFetcher,
    timestamper: deps.timestamper,
    maxPages: deps.limits.maxPdfPages,
    password: input.password,
  });
}

import { resolveDocument, type DocumentLimits } from "#domain/shared/document.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { verifySignatures, type TrustStore } from "#domain/verification/signature-verifier.ts";
import type { VerifyReport } from "#domain/verification/verify-report.ts";
import { DEFAULT_VERIFY_LIMITS, type VerifyLimits } from "#domain/pdf/verify-limits.ts";

/** VerifyDependencies are the outside parts verification uses. */
export interface VerifyDependencies {
  fetcher: Fetcher;
  limits: DocumentLimits;
  /** The certificates a signature must chain to for `trusted`. */
  trust: () => Promise<TrustStore>;
  /** Caps on the work one verification may do (defaults: DEFAULT_VERIFY_LIMITS). */
  verifyLimits?: VerifyLimits;
}

/**
 * verifyDocument runs POST /v1/verify: resolves the PDF, reads it once (PdfFile, under the verify
 * limits: a file over one is a 422 naming it), inflates the object streams the latest revision
 * uses (a bomb is refused before anything reads from it), and reports on each of its signatures
 * through views of that one parse.
 */
export async function verifyDocument(
  input: { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined; password?: string | undefined },
  deps: VerifyDependencies,
): Promise<VerifyReport> {
  const document = await resolveDocument(input, ["pdf"], { fetcher: deps.fetcher, limits: deps.limits });
  const file = openPdfFile(document.bytes, {
    limits: { ...DEFAULT_VERIFY_LIMITS, ...deps.verifyLimits },
    maxPages: deps.limits.maxPdfPages,
    password: input.password,
  });
  file.checkObjectStreams();
  return await verifySignatures(file, await deps.trust());
}

import { resolveDocument, type DocumentLimits } from "#domain/shared/document.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { openPdf } from "#domain/pdf/open-pdf.ts";
import { PdfRevisions } from "#domain/pdf/revisions.ts";
import { verifySignatures, type TrustStore } from "#domain/verification/signature-verifier.ts";
import type { VerifyReport } from "#domain/verification/verify-report.ts";
import { DEFAULT_VERIFY_LIMITS, VerifyBudget, type VerifyLimits } from "#domain/pdf/verify-limits.ts";

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
 * checkStructureLimits reads the file's cross-reference chain with Signet's bounded reader before
 * any other parser sees it, and inflates the object streams the latest revision uses: a file over a
 * verify limit (revisions, objects, inflated size, entries no bytes back) is a 422 naming the limit, before libpdf would loop or inflate without bound.
 * A chain Signet cannot read is left to the parser and the analysis (which call it "other").
 */
function checkStructureLimits(bytes: Buffer, limits: VerifyLimits): void {
  try {
    new PdfRevisions(bytes, limits, new VerifyBudget(limits.timeBudgetMs)).checkObjectStreams();
  } catch (error) {
    if (error instanceof SignetError) throw error;
  }
}

/** verifyDocument runs POST /v1/verify: resolves the PDF and reports on each of its signatures. */
export async function verifyDocument(
  input: { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined },
  deps: VerifyDependencies,
): Promise<VerifyReport> {
  const document = await resolveDocument(input, ["pdf"], { fetcher: deps.fetcher, limits: deps.limits });
  checkStructureLimits(document.bytes, { ...DEFAULT_VERIFY_LIMITS, ...deps.verifyLimits });
  return await verifySignatures(await openPdf(document.bytes, deps.limits.maxPdfPages), document.bytes, await deps.trust());
}

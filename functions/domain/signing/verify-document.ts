import { resolveDocument, type DocumentLimits } from "#domain/shared/document.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { openPdf } from "#domain/signing/open-pdf.ts";
import { verifySignatures, type TrustStore, type VerifyReport } from "#domain/signing/signature-verifier.ts";

/** VerifyDependencies are the outside parts verification uses. */
export interface VerifyDependencies {
  fetcher: Fetcher;
  limits: DocumentLimits;
  /** The certificates a signature must chain to for `trusted`. */
  trust: () => Promise<TrustStore>;
}

/** verifyDocument runs POST /v1/verify: resolves the PDF and reports on each of its signatures. */
export async function verifyDocument(
  input: { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined },
  deps: VerifyDependencies,
): Promise<VerifyReport> {
  const document = await resolveDocument(input, ["pdf"], { fetcher: deps.fetcher, limits: deps.limits });
  return await verifySignatures(await openPdf(document.bytes, deps.limits.maxPdfPages), document.bytes, await deps.trust());
}

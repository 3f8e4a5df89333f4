import { PDF } from "@libpdf/core";
import { resolveDocument, type DocumentLimits } from "#domain/document.ts";
import { SignetError } from "#domain/errors.ts";
import type { Fetcher } from "#domain/fetcher.ts";
import { looksEncrypted } from "#domain/pades-signer.ts";
import { verifySignatures, type TrustStore, type VerifyReport } from "#domain/signature-verifier.ts";

/** VerifyDependencies are the outside parts verification uses. */
export interface VerifyDependencies {
  fetcher: Fetcher;
  limits: DocumentLimits;
  /** The certificates a signature must chain to for `trusted`. */
  trust: () => Promise<TrustStore>;
}

/** verifyDocument runs POST /v1/verify: resolves the PDF and reports on each of its signatures. */
export async function verifyDocument(input: { base64?: string | undefined; url?: string | undefined }, deps: VerifyDependencies): Promise<VerifyReport> {
  const document = await resolveDocument(input, ["pdf"], { fetcher: deps.fetcher, limits: deps.limits });
  let pdf: PDF;
  try {
    pdf = await PDF.load(document.bytes);
  } catch (error) {
    if (looksEncrypted(document.bytes) || /encrypt|password|decrypt/i.test(String((error as Error)?.message))) {
      throw new SignetError("ENCRYPTED_DOCUMENT", "The PDF is password-protected; its signatures cannot be read without the password.", { cause: error });
    }
    throw new SignetError("INVALID_DOCUMENT", "The PDF could not be read; it looks damaged.", { cause: error });
  }
  if (pdf.isEncrypted) throw new SignetError("ENCRYPTED_DOCUMENT", "The PDF is encrypted; verification of encrypted PDFs is not supported.");
  return await verifySignatures(pdf, document.bytes, await deps.trust());
}

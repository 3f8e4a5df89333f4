import type { ModificationLevel } from "#domain/verification/modification-rules/rule.ts";
import type { SignatureLevel } from "#domain/verification/signature-level.ts";

// What /v1/verify answers, apart from the working state the verifier keeps while it checks each
// signature (signature-verifier.ts CheckedSignature): a parsed signature is not its verdict.

/** SignatureReport is what /v1/verify says about one signature. */
export interface SignatureReport {
  field: string;
  /** The signature field's widget shows on a page (a visible signature); false for an invisible one. */
  visible: boolean;
  subFilter: string;
  signerName: string | null;
  certificateSubject: string;
  fingerprint: string;
  signingTime: string | null;
  coversWholeDocument: boolean;
  integrity: "ok" | "broken";
  trusted: boolean;
  timestamp?: TimestampReport;
  modifiedAfter: boolean;
  /** What the incremental updates after this signature changed (pyHanko's difference analysis levels). */
  modificationLevel: ModificationLevel;
  /** The DocMDP permission (1, 2 or 3) when this is a certification signature. */
  docMdpPermission?: number;
  /** The changes after this signature stay within what it (or the document's certification) permits. */
  changesPermitted: boolean;
  /** The PAdES baseline level reached (ETSI.CAdES.detached signatures); null for other kinds and document timestamps. */
  level: SignatureLevel | null;
  /** A document timestamp (SubFilter ETSI.RFC3161, B-LTA) rather than a signature. */
  documentTimestamp: boolean;
  /** For B-LT/B-LTA and document timestamps in a document with a DSS: whether the embedded validation data suffices offline. */
  validationData?: { offline: boolean; problem?: string };
}

/** TimestampReport is what /v1/verify says about a signature's RFC 3161 timestamp. */
export interface TimestampReport {
  /** The TSA's genTime; null unless the token verified (an unverified time is not reported). */
  time: string | null;
  authority: string | null;
  /** The token verified and its imprint (by the token's own hash algorithm) matches the signature value. */
  imprintValid: boolean;
  /** The TSA's CMS signature over the token verifies with its timestamping certificate. */
  tokenValid: boolean;
  /** Why the token did not verify. */
  problem?: string;
}

/** SignerSummary names one signer for clients of the reference product. */
export interface SignerSummary {
  name: string | null;
  email: string | null;
  certificateSubject: string;
}

/** VerifyReport is the answer of /v1/verify. */
export interface VerifyReport {
  valid: boolean;
  /** Every signature (document timestamps aside) is intact and chains to this service's certificate or a configured anchor. */
  trusted: boolean;
  reason: string;
  signatures: SignatureReport[];
  signer: SignerSummary | null;
  signers: SignerSummary[];
  document: { pages: number; sha256: string };
}

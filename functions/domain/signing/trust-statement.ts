import type { PublicIdentity } from "#domain/signing/identity-store.ts";
import { kmsRootCommonName } from "#domain/signing/kms-identity-store.ts";
import type { KeyLocation } from "#domain/pki/signer.ts";
import { localRootCommonName, rootCertificate } from "#domain/signing/signing-identity.ts";

/** TrustStatement says where the signing key lives and what a PDF reader will show for its signatures. */
export interface TrustStatement {
  /** Where the private key is: `kms` (with the key's ARN or id) or `file` (a key file the signing function reads). */
  key: { location: "kms"; keyId: string } | { location: "file" };
  /** Who issued the chain: Signet itself (its own root, locally or in KMS), or another CA (an operator's, or self-signed by the operator). */
  issuedBy: "signet" | "other";
  /** Whether the key sits in attested hardware a trust list (AATL) accepts: never for a KMS key or a key file. */
  attestedHardwareKey: false;
  /** In words: what a reader shows, and what it would take to change that. */
  readers: string;
}

const AATL =
  "A green tick in Adobe Reader for everyone needs a certificate from a member of the Adobe Approved Trust List (AATL), and AATL members issue only for keys in attested hardware (a CloudHSM or a remote-signing service); a plain AWS KMS key is not attested that way, and neither is a key file.";

/** trustStatement describes an identity's key and the trust its signatures get from readers, plainly. */
export function trustStatement(identity: PublicIdentity, location: KeyLocation): TrustStatement {
  const root = rootCertificate(identity);
  const own = root.subject === `CN=${kmsRootCommonName}` || root.subject === `CN=${localRootCommonName}`;
  const where =
    location.kind === "kms"
      ? "The private key never leaves AWS KMS: every signature is a KMS Sign request (a CloudTrail event), and access is an IAM decision."
      : "The private key is a key file the signing function reads into its memory.";
  const chain = own
    ? "The certificate is issued by Signet's own root CA (rootCertificate). PDF readers trust it only where someone installed that root as a trust anchor; elsewhere Adobe Reader shows the signature as valid but its signer's identity as unknown (integrity is still checked)."
    : `The certificate chains to ${root.subject.replace(/\n/g, ", ")}. PDF readers trust it where that root is trusted (installed, or in their trust list); elsewhere they show the signer's identity as unknown.`;
  return {
    key: location.kind === "kms" ? { location: "kms", keyId: location.keyArn } : { location: "file" },
    issuedBy: own ? "signet" : "other",
    attestedHardwareKey: false,
    readers: `${where} ${chain} ${AATL}`,
  };
}

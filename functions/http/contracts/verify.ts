import * as z from "zod";
import { signatureLevels } from "#domain/verification/signature-level.ts";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";

const signerSummary = z.object({
  name: z.string().nullable(),
  email: z.string().nullable(),
  certificateSubject: z.string(),
});

/** verifyReportSchema is the answer of POST /v1/verify (docs/api.md, "Sign and verify"). */
const verifyReportSchema = z
  .object({
    valid: z.boolean().meta({
      description: "At least one signature, every signature intact, and no signature followed by changes beyond what it permits (see changesPermitted).",
    }),
    trusted: z.boolean().meta({
      description:
        "Every signature (document timestamps aside) is intact and signed with this service's certificate, or chains by its issuers' keys to a certificate of SIGNET_TRUST_ANCHORS_FILE: trust is decided by keys, never by names. Require both `valid` and `trusted` before relying on a document.",
    }),
    reason: z.string(),
    signatures: z.array(
      z.object({
        field: z.string().meta({ description: "The signature field's fully qualified name." }),
        visible: z.boolean().meta({ description: "The field's widget shows on a page (an area, not hidden): a visible signature." }),
        subFilter: z.string(),
        signerName: z.string().nullable(),
        certificateSubject: z.string(),
        fingerprint: z.string(),
        signingTime: z.string().nullable(),
        coversWholeDocument: z.boolean(),
        integrity: z.enum(["ok", "broken"]).meta({
          description:
            "ok when the /ByteRange gap is exactly this signature dictionary's own /Contents (one DER object plus zero padding), the dictionary lies inside the signed bytes, the digest matches and the CMS signature verifies. A broken signature reports no signer name, e-mail or time.",
        }),
        trusted: z.boolean().meta({ description: "Intact, and its certificate is this service's or chains to a configured trust anchor." }),
        timestamp: z
          .object({
            time: z.string().nullable().meta({ description: "The TSA's genTime, ISO-8601; null when the token does not verify." }),
            authority: z.string().nullable().meta({ description: "Subject of the TSA certificate carried in the token." }),
            imprintValid: z.boolean().meta({ description: "The token verifies and its imprint (by the token's hash algorithm) matches the signature value." }),
            tokenValid: z.boolean().meta({
              description:
                "The TSA's CMS signature over the token verifies with the certificate in the token, which has the critical extended key usage timeStamping (its chain is not checked).",
            }),
            problem: z.string().optional().meta({ description: "Why the token does not verify." }),
          })
          .optional()
          .meta({ description: "The RFC 3161 signature timestamp (PAdES B-T), when present." }),
        modifiedAfter: z.boolean().meta({ description: "Bytes follow the signed range (an incremental update, or anything appended)." }),
        modificationLevel: z.enum(["none", "lta", "form_filling", "annotations", "other"]).meta({
          description:
            "What the incremental updates after this signature changed, each compared with the signed revision (as pyHanko's difference analysis): none; lta (document info, XMP metadata, DSS, document timestamps, cross-reference and object streams); form_filling (field values, new signature fields and their widgets); annotations (new annotations on existing pages); other (pages added or removed, content or fonts replaced, catalog entries changed, objects deleted, anything unexplained).",
        }),
        docMdpPermission: z
          .number()
          .int()
          .min(1)
          .max(3)
          .optional()
          .meta({ description: "Present on a certification signature: its DocMDP permission (1 no changes, 2 form filling and signing, 3 also annotations)." }),
        changesPermitted: z.boolean().meta({
          description:
            "The changes after this signature are within what is permitted: at most form_filling, annotations only under a certification with P=3, only lta under P=1. `valid` requires this for every signature.",
        }),
        level: z.enum(signatureLevels).nullable().meta({
          description:
            "The PAdES baseline level of an intact ETSI.CAdES.detached signature: B-B; B-T with a verified signature timestamp; B-LT when the document holds a DSS; B-LTA when a valid document timestamp follows. Null for other signature kinds, document timestamps and broken signatures.",
        }),
        documentTimestamp: z
          .boolean()
          .meta({ description: "A document timestamp (SubFilter ETSI.RFC3161, added for B-LTA) rather than a signature; not listed among signers." }),
        validationData: z
          .object({
            offline: z.boolean().meta({
              description:
                "Every certificate of the signer's and the TSA's chains up to a root is embedded, each with a good OCSP response or a CRL not listing it, signed by its issuer.",
            }),
            problem: z.string().optional().meta({ description: "What is missing for offline validation." }),
          })
          .optional()
          .meta({
            description: "For B-LT, B-LTA and document timestamps in a document with a DSS: whether the embedded validation data suffices to validate offline.",
          }),
      }),
    ),
    signer: signerSummary.nullable(),
    signers: z.array(signerSummary),
    document: z.object({ pages: z.number().int(), sha256: z.string() }),
  })
  .meta({ id: "VerifyReport" });

/** verifyRoute: POST /v1/verify. */
export const verifyRoute = defineRoute({
  name: "verify",
  async: true,
  method: "POST",
  path: "/v1/verify",
  auth: false,
  tag: "Sign",
  summary: "Check a PDF's signatures",
  description:
    "Reports every signature of a PDF: integrity, coverage, signer certificate, trust, and what each later incremental update changed (modificationLevel, as pyHanko's difference analysis classes it). A PDF with more than 100 signatures, more than 1,000 incremental updates, cross-reference or object streams inflating to more than 64 MB, cross-reference stream entries its data does not hold, or a structure the analysis cannot finish within 4 s is refused (422 INVALID_DOCUMENT naming the limit).",
  body: {
    kind: "json",
    schema: z.strictObject({ document: documentInputSchema }).meta({ id: "VerifyRequest" }),
    example: { document: { base64: "JVBERi0xLjcK..." } },
  },
  success: { description: "The verification report.", contentType: "application/json", schema: verifyReportSchema },
  errors: ["INVALID_DOCUMENT", "ENCRYPTED_DOCUMENT", "WRONG_PASSWORD", "PAYLOAD_TOO_LARGE", "FETCH_FAILED", "SERVICE_UNAVAILABLE"],
});

/** verifyKeyRoute: GET /v1/verify/key publishes the service's signing certificate. */
export const verifyKeyRoute = defineRoute({
  name: "verify-key",
  method: "GET",
  path: "/v1/verify/key",
  auth: false,
  tag: "Sign",
  summary: "The service's signing certificate",
  description:
    "Publishes the certificate and public key Signet signs with, the root certificate of its chain, so anyone can pin or trust it, where the private key lives (`kms` with the key's ARN, or `file`), and in plain words what a PDF reader will show for its signatures.",
  body: { kind: "none" },
  success: {
    description: "The signing certificate.",
    contentType: "application/json",
    schema: z
      .object({
        version: z.string(),
        algorithm: z.string(),
        publicKey: z.string(),
        certificate: z.string(),
        fingerprint: z.string(),
        validFrom: z.string(),
        validTo: z.string(),
        issuer: z.string(),
        rootCertificate: z.string().meta({
          description:
            "PEM of the root of the signing certificate's chain (the local identity's root CA, or the certificate itself when it is self-signed): import it as a trust anchor in pdfsig's NSS database or Adobe.",
        }),
        chain: z.array(z.string()).meta({ description: "PEM of the issuer certificates, nearest first (empty for a self-signed certificate)." }),
        key: z
          .union([
            z.object({
              location: z.literal("kms"),
              keyId: z.string().meta({ description: "The AWS KMS key ARN (the configured key id or alias when no ARN is known)." }),
            }),
            z.object({ location: z.literal("file") }),
          ])
          .meta({ description: "Where the private key lives: in AWS KMS (it never leaves it), or a key file the signing function reads into memory." }),
        issuedBy: z
          .enum(["signet", "other"])
          .meta({ description: "`signet`: the chain ends in Signet's own root CA; `other`: an operator's CA (or an operator's self-signed certificate)." }),
        attestedHardwareKey: z
          .literal(false)
          .meta({ description: "Whether the key is in attested hardware that Adobe Approved Trust List members require: never for a KMS key or a key file." }),
        readers: z.string().meta({ description: "What a PDF reader shows for these signatures, and what it would take to change that." }),
      })
      .meta({ id: "VerifyKeyResponse" }),
  },
  errors: ["SERVICE_UNAVAILABLE"],
});

/** verifyCrlRoute: GET /v1/verify/crl serves the local identity's CRL. */
export const verifyCrlRoute = defineRoute({
  name: "verify-crl",
  method: "GET",
  path: "/v1/verify/crl",
  auth: false,
  tag: "Sign",
  summary: "The root CA's CRL",
  description:
    "The certificate revocation list of the local identity's root CA (DER, RFC 5280), no certificate revoked. It is issued once and kept (thisUpdate when issued, nextUpdate 7 days later), re-issued with fewer than 3 days left or when the root changes (on AWS by a scheduled function; this route only serves it, and answers 503 with Retry-After: 60 before the first issue), and served with `Cache-Control: public, max-age` (at most a day, never into its last day), `ETag` and `Last-Modified`. A signing certificate Signet issues (the local server's, or with the root key in AWS KMS, on AWS too) names this URL as its CRL distribution point, so PAdES B-LT and B-LTA embed this CRL. For a key file on AWS, an operator-provided identity (whose CA publishes its own revocation data) or a local identity from before CRLs, it answers 404 `NOT_FOUND` saying why.",
  body: { kind: "none" },
  success: { description: "The CRL, DER-encoded.", contentType: "application/pkix-crl" },
  errors: ["NOT_FOUND", "SERVICE_UNAVAILABLE"],
});

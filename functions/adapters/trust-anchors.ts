import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { CertificateStore } from "#domain/signing/identity-store.ts";
import type { TrustStore } from "#domain/verification/signature-verifier.ts";

function readAnchors(path: string): X509Certificate[] {
  const pem = readFileSync(path, "utf8");
  return Array.from(pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g), (match) => new X509Certificate(match[0]));
}

/**
 * createTrustStore gives what /v1/verify calls trusted: this service's published signing
 * certificate (from `certificates`) plus the certificates of the PEM file `anchorsFile`, read once.
 */
export function createTrustStore(certificates: CertificateStore, anchorsFile: string | undefined): () => Promise<TrustStore> {
  let fileAnchors: X509Certificate[] | undefined;
  return async () => {
    const identity = await certificates.load();
    fileAnchors ??= anchorsFile ? readAnchors(anchorsFile) : [];
    // Before the first signature (AWS) no certificate is published: nothing of ours to trust yet.
    return { anchors: [...(identity ? [identity.certificate] : []), ...fileAnchors] };
  };
}

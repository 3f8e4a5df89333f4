import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { config } from "#config";
import { certificateStore } from "#adapters/identity.ts";
import type { TrustStore } from "#domain/signing/signature-verifier.ts";

let fileAnchors: X509Certificate[] | undefined;

function readAnchors(path: string): X509Certificate[] {
  const pem = readFileSync(path, "utf8");
  return Array.from(pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g), (match) => new X509Certificate(match[0]));
}

/**
 * trustStore is what /v1/verify calls trusted: this service's published signing certificate plus the
 * certificates in SIGNET_TRUST_ANCHORS_FILE (PEM, read once per container).
 */
export async function trustStore(): Promise<TrustStore> {
  const identity = await certificateStore.load();
  fileAnchors ??= config.signing.trustAnchorsFile ? readAnchors(config.signing.trustAnchorsFile) : [];
  // Before the first signature (AWS) no certificate is published: nothing of ours to trust yet.
  return { anchors: [...(identity ? [identity.certificate] : []), ...fileAnchors] };
}

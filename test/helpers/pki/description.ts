// How a test PKI is described: who issues what, with which key, names, extensions and validity,
// in one object (pyHanko's certomancer configuration is the model). test/helpers/pki/build.ts turns
// a description into files; test/helpers/pki/testing-pki.ts holds the one the tests share.

/** KeySpec is a key the builder generates (openssl genpkey). */
export type KeySpec = "rsa2048" | "rsa3072" | "ec-p256";

/** CertificateSpec is one certificate and its key. */
export interface CertificateSpec {
  /** The subject as openssl writes it: `/CN=Name/O=Org`. */
  subject: string;
  key: KeySpec;
  /** The name of the certificate that issues this one; absent, it is self-signed. */
  issuer?: string;
  /** Days from now until it expires. */
  days: number;
  /** X.509 v3 extensions as openssl config lines (`keyUsage = critical, keyCertSign`); absent, none are added to an issued certificate. */
  extensions?: readonly string[];
}

/**
 * P12Algorithms names how a PKCS#12 file is encrypted, as the tools that write them do:
 * OpenSSL 3's default (PBES2, AES-256, PBKDF2), SHA-1 3DES with a SHA-1 MAC (Windows' TripleDES
 * export, the only one node-forge reads), certificates not encrypted, OpenSSL 1.x's legacy default
 * (RC2-40 certificates, 3DES key) and RC2-128 certificates.
 */
export type P12Algorithms = "openssl-default" | "sha1-3des" | "no-certificate-encryption" | "legacy-rc2-40" | "legacy-rc2-128";

/** P12Spec is a PKCS#12 file holding one certificate's key and certificate, and optionally a chain. */
export interface P12Spec {
  certificate: string;
  /** Names of further certificates to put in the file. */
  chain?: readonly string[];
  password: string;
  algorithms: P12Algorithms;
}

/** CrlSpec is an issuer's CRL (revoking nothing), as `openssl ca -gencrl` signs it. */
export interface CrlSpec {
  issuer: string;
  days: number;
}

/** PkiDescription is a whole test PKI: certificates by name (issuers before what they issue), PKCS#12 files and CRLs. */
export interface PkiDescription {
  certificates: Readonly<Record<string, CertificateSpec>>;
  p12s?: Readonly<Record<string, P12Spec>>;
  crls?: Readonly<Record<string, CrlSpec>>;
}

/** opensslSelfSignedDefaults are the extensions `openssl req -x509` adds when told none (Debian's openssl.cnf v3_ca). */
export const opensslSelfSignedDefaults = [
  "subjectKeyIdentifier = hash",
  "authorityKeyIdentifier = keyid:always, issuer",
  "basicConstraints = critical, CA:true",
] as const;

// The test PKI the tests share, described once (pyHanko's certomancer TESTING_CA is the model),
// built once per run by test/helpers/pki/global-setup.ts and opened with testPki()
// (test/helpers/pki/test-pki.ts). Every certificate and PKCS#12 file from another tool that a test
// reads is here; a test that needs one names it.
import { opensslSelfSignedDefaults, type PkiDescription } from "#test/helpers/pki/description.ts";

const endEntity = ["basicConstraints = critical, CA:false", "keyUsage = critical, digitalSignature, nonRepudiation"];
const p12Chain = { certificate: "p12-leaf", chain: ["p12-root"], password: "s3cret ü" } as const;

/** testingPki describes the shared test PKI. */
export const testingPki = {
  certificates: {
    // A timestamp authority under its own root, and one that is its own root (no key usage, so it
    // may issue itself): its tokens' chain is complete without revocation data, for B-LT.
    "tsa-root": { subject: "/CN=Signet Test TSA Root", key: "rsa2048", days: 2, extensions: opensslSelfSignedDefaults },
    tsa: {
      subject: "/CN=Signet Test TSA",
      key: "rsa2048",
      issuer: "tsa-root",
      days: 2,
      extensions: [...endEntity, "extendedKeyUsage = critical, timeStamping"],
    },
    "tsa-self-signed": {
      subject: "/CN=Signet Test TSA (self-signed)",
      key: "rsa2048",
      days: 2,
      extensions: ["basicConstraints = critical, CA:false", "extendedKeyUsage = critical, timeStamping", "subjectKeyIdentifier = hash"],
    },
    // The signer of other tools (pyHanko, @signpdf), self-signed.
    "other-signer": { subject: "/CN=Other Tool Signer", key: "rsa2048", days: 2, extensions: opensslSelfSignedDefaults },
    // PKCS#12 reading: an RSA leaf with its root, and an EC key.
    "p12-root": { subject: "/CN=P12 Root", key: "rsa2048", days: 2, extensions: [...opensslSelfSignedDefaults, "keyUsage = critical, keyCertSign"] },
    "p12-leaf": { subject: "/CN=P12 Leaf", key: "rsa2048", issuer: "p12-root", days: 2 },
    "p12-ec": { subject: "/CN=P12 EC", key: "ec-p256", days: 2, extensions: opensslSelfSignedDefaults },
    // An operator's own signing certificate, installed as identity.p12.
    operator: { subject: "/CN=Operator Signing/O=Example", key: "ec-p256", days: 2, extensions: opensslSelfSignedDefaults },
    // A CA that certifies the CSR npm run identity:csr makes.
    "acme-ca": {
      subject: "/CN=ACME CA",
      key: "ec-p256",
      days: 2,
      extensions: [...opensslSelfSignedDefaults, "keyUsage = critical, keyCertSign, cRLSign"],
    },
    // Certificates a DSS carries (pdf-revision-attacks).
    "dss-test": { subject: "/CN=DSS Test", key: "rsa2048", days: 2, extensions: opensslSelfSignedDefaults },
    "dss-other": { subject: "/CN=DSS Other", key: "rsa2048", days: 2, extensions: opensslSelfSignedDefaults },
  },
  p12s: {
    // node-forge (inside @signpdf) reads only the legacy SHA-1/3DES algorithms.
    "other-signer": { certificate: "other-signer", password: "", algorithms: "sha1-3des" },
    "p12-openssl-default": { ...p12Chain, algorithms: "openssl-default" },
    "p12-sha1-3des": { ...p12Chain, algorithms: "sha1-3des" },
    "p12-no-certificate-encryption": { ...p12Chain, algorithms: "no-certificate-encryption" },
    "p12-legacy-rc2-40": { ...p12Chain, algorithms: "legacy-rc2-40" },
    "p12-legacy-rc2-128": { ...p12Chain, algorithms: "legacy-rc2-128" },
    "p12-ec": { certificate: "p12-ec", password: "", algorithms: "openssl-default" },
    "p12-ec-password-right": { certificate: "p12-ec", password: "right", algorithms: "openssl-default" },
    operator: { certificate: "operator", password: "s3cret", algorithms: "openssl-default" },
  },
} as const satisfies PkiDescription;

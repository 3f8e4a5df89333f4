// The one builder of test PKIs: a description (test/helpers/pki/description.ts) in, files out,
// issued by openssl so that what Signet reads was made by another implementation. Each
// certificate is <name>.key (PKCS#8) and <name>.pem, each PKCS#12 file <name>.p12, each CRL
// <name>.crl (DER); each issuer keeps an openssl CA database <name>.index.txt listing what it
// issued as valid, for `openssl ca -gencrl` and `openssl ocsp`.
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CertificateSpec, KeySpec, P12Algorithms, PkiDescription } from "#test/helpers/pki/description.ts";
import { openssl } from "#test/helpers/pki/openssl.ts";

const keyOptions: Record<KeySpec, string[]> = {
  rsa2048: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
  rsa3072: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:3072"],
  "ec-p256": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
};

const p12Options: Record<P12Algorithms, string[]> = {
  "openssl-default": [],
  "sha1-3des": ["-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1"],
  "no-certificate-encryption": ["-certpbe", "NONE"],
  "legacy-rc2-40": ["-legacy"],
  "legacy-rc2-128": ["-legacy", "-certpbe", "PBE-SHA1-RC2-128"],
};

/** BuiltPki is a description's files in a folder: paths and PEM text by the description's names. */
export class BuiltPki {
  readonly dir: string;
  readonly #description: PkiDescription;

  constructor(description: PkiDescription, dir: string) {
    this.#description = description;
    this.dir = dir;
  }

  /** certificatePath is the PEM file of a certificate. */
  certificatePath(name: string): string {
    this.#spec(name);
    return join(this.dir, `${name}.pem`);
  }

  /** keyPath is the PKCS#8 PEM file of a certificate's private key. */
  keyPath(name: string): string {
    this.#spec(name);
    return join(this.dir, `${name}.key`);
  }

  /** p12 is the bytes of a PKCS#12 file. */
  p12(name: string): Buffer {
    if (!this.#description.p12s?.[name]) throw new Error(`the test PKI has no PKCS#12 file ${name}`);
    return readFileSync(join(this.dir, `${name}.p12`));
  }

  /** crlPath is the DER file of a CRL. */
  crlPath(name: string): string {
    if (!this.#description.crls?.[name]) throw new Error(`the test PKI has no CRL ${name}`);
    return join(this.dir, `${name}.crl`);
  }

  /** indexPath is an issuer's openssl CA database (what `openssl ocsp -index` reads). */
  indexPath(issuer: string): string {
    this.#spec(issuer);
    return join(this.dir, `${issuer}.index.txt`);
  }

  /** identityPem is a PEM bundle of a certificate's key, the certificate and its issuers up to the root. */
  identityPem(name: string): string {
    const parts = [readFileSync(this.keyPath(name), "utf8")];
    for (let at: string | undefined = name; at; at = this.#spec(at).issuer) parts.push(readFileSync(this.certificatePath(at), "utf8"));
    return parts.join("");
  }

  #spec(name: string): CertificateSpec {
    const spec = this.#description.certificates[name];
    if (!spec) throw new Error(`the test PKI has no certificate ${name}`);
    return spec;
  }
}

/** buildPki issues everything a description names into `dir` (issuers first, as listed) and returns the result. */
export function buildPki(description: PkiDescription, dir: string): BuiltPki {
  writeFileSync(join(dir, "pki.cnf"), configFile(description, dir));
  for (const [name, spec] of Object.entries(description.certificates)) issue(dir, name, spec, description);
  for (const [name, spec] of Object.entries(description.p12s ?? {})) {
    const args = ["-export", "-inkey", `${spec.certificate}.key`, "-in", `${spec.certificate}.pem`, "-out", `${name}.p12`];
    if (spec.chain) {
      writeFileSync(join(dir, `${name}.chain.pem`), spec.chain.map((member) => readFileSync(join(dir, `${member}.pem`), "utf8")).join(""));
      args.push("-certfile", `${name}.chain.pem`);
    }
    openssl(dir, "pkcs12", ...args, "-passout", `pass:${spec.password}`, ...p12Options[spec.algorithms]);
  }
  for (const [name, spec] of Object.entries(description.crls ?? {})) {
    writeFileSync(join(dir, `${spec.issuer}.index.txt`), "", { flag: "a" });
    writeFileSync(join(dir, `${spec.issuer}.crlnumber`), "01\n");
    openssl(
      dir,
      "ca",
      "-gencrl",
      "-config",
      "pki.cnf",
      "-name",
      `ca_${name}`,
      "-keyfile",
      `${spec.issuer}.key`,
      "-cert",
      `${spec.issuer}.pem`,
      "-out",
      `${name}.crl.pem`,
    );
    openssl(dir, "crl", "-in", `${name}.crl.pem`, "-outform", "DER", "-out", `${name}.crl`);
  }
  return new BuiltPki(description, dir);
}

/**
 * certifyCsr has an issuer of a built PKI certify a CSR made elsewhere (by the code under test),
 * copying the CSR's extensions, as a CA would; it writes the certificate to `out`.
 */
export function certifyCsr(pki: BuiltPki, issuer: string, csrFile: string, out: string, days = 2): void {
  const serial = `0x${randomBytes(8).toString("hex")}`;
  const ca = ["-CA", pki.certificatePath(issuer), "-CAkey", pki.keyPath(issuer), "-set_serial", serial];
  openssl(pki.dir, "x509", "-req", "-in", csrFile, ...ca, "-out", out, "-days", String(days), "-copy_extensions", "copy");
}

function issue(dir: string, name: string, spec: CertificateSpec, description: PkiDescription): void {
  openssl(dir, "genpkey", ...keyOptions[spec.key], "-out", `${name}.key`);
  const days = ["-days", String(spec.days)];
  const extensions = spec.extensions ? ["-extensions", `ext_${name}`] : [];
  if (!spec.issuer) {
    openssl(dir, "req", "-x509", "-new", "-config", "pki.cnf", "-key", `${name}.key`, "-subj", spec.subject, "-out", `${name}.pem`, ...days, ...extensions);
    return;
  }
  if (!description.certificates[spec.issuer]) throw new Error(`${name}: its issuer ${spec.issuer} is not described before it`);
  openssl(dir, "req", "-new", "-config", "pki.cnf", "-key", `${name}.key`, "-subj", spec.subject, "-out", `${name}.csr`);
  const ca = ["-CA", `${spec.issuer}.pem`, "-CAkey", `${spec.issuer}.key`, "-CAcreateserial"];
  const extfile = spec.extensions ? ["-extfile", "pki.cnf", ...extensions] : [];
  openssl(dir, "x509", "-req", "-in", `${name}.csr`, ...ca, "-out", `${name}.pem`, ...days, ...extfile);
  // The issuer's database lists it as valid: V, expiry (YYMMDDHHMMSSZ), no revocation, serial, unknown file, subject.
  const serial = openssl(dir, "x509", "-in", `${name}.pem`, "-noout", "-serial").trim().split("=")[1]!;
  const expiry = `${new Date(Date.now() + spec.days * 86_400_000).toISOString().replace(/[-:T]/g, "").slice(2, 14)}Z`;
  writeFileSync(join(dir, `${spec.issuer}.index.txt`), `V\t${expiry}\t\t${serial}\tunknown\t${spec.subject}\n`, { flag: "a" });
}

/** configFile is the openssl configuration the builder issues with: one extension section per certificate, one CA section per CRL. */
function configFile(description: PkiDescription, dir: string): string {
  const lines = ["[ req ]", "distinguished_name = dn", "[ dn ]"];
  for (const [name, spec] of Object.entries(description.certificates)) {
    if (spec.extensions) lines.push(`[ ext_${name} ]`, ...spec.extensions);
  }
  for (const [name, spec] of Object.entries(description.crls ?? {})) {
    lines.push(
      `[ ca_${name} ]`,
      `database = ${join(dir, `${spec.issuer}.index.txt`)}`,
      `crlnumber = ${join(dir, `${spec.issuer}.crlnumber`)}`,
      "default_md = sha256",
      `default_crl_days = ${spec.days}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

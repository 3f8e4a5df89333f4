// The one place the tests run the openssl CLI: the PKI builder issues with it, the loopback TSA and
// OCSP responder answer with it, and a few tests ask it, as an independent reader, what it makes of
// a certificate, a CSR or a CRL that Signet wrote.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** openssl runs the openssl CLI in a folder and returns its standard output; it throws when openssl fails. */
export function openssl(dir: string, ...args: string[]): string {
  return execFileSync("openssl", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** opensslAsync is openssl without blocking the event loop, for the loopback responders (one call per request). */
export async function opensslAsync(dir: string, ...args: string[]): Promise<void> {
  await run("openssl", args, { cwd: dir });
}

/** OpensslVerdict is what openssl said, on both streams (verify commands report on stderr), and whether it exited 0. */
export interface OpensslVerdict {
  ok: boolean;
  stdout: string;
  stderr: string;
}

function verdict(dir: string, args: string[]): OpensslVerdict {
  const result = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
  return { ok: result.status === 0, stdout: result.stdout, stderr: result.stderr };
}

/** certificateText is `openssl x509 -text` of a PEM file, or of one extension with `extension` (e.g. crlDistributionPoints). */
export function certificateText(pemFile: string, extension?: string): string {
  return openssl(".", "x509", "-in", pemFile, "-noout", ...(extension ? ["-ext", extension] : ["-text"]));
}

/** verifyCertificate is `openssl verify` of a leaf PEM file against a root PEM file. */
export function verifyCertificate(rootFile: string, leafFile: string): OpensslVerdict {
  return verdict(".", ["verify", "-CAfile", rootFile, leafFile]);
}

/** checkCrl is `openssl crl -verify -text` of a DER CRL against its issuer's PEM file: "verify OK" on stderr when it holds. */
export function checkCrl(crlFile: string, issuerFile: string): OpensslVerdict {
  return verdict(".", ["crl", "-inform", "DER", "-in", crlFile, "-CAfile", issuerFile, "-noout", "-verify", "-text"]);
}

/** crlIssuer is `openssl crl -issuer` of a DER CRL: whether openssl can read it at all, and who it says signed it. */
export function crlIssuer(crlFile: string): string {
  return openssl(".", "crl", "-inform", "DER", "-in", crlFile, "-noout", "-issuer");
}

/** checkCsr is `openssl req -verify -subject` of a PEM CSR: its self-signature and its subject. */
export function checkCsr(csrFile: string): OpensslVerdict {
  return verdict(".", ["req", "-in", csrFile, "-noout", "-verify", "-subject"]);
}

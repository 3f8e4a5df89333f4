import { createHash, type X509Certificate } from "node:crypto";
import { crlKeyIdOf, issueCrl, readCrl } from "#domain/pki/crl.ts";
import type { CrlIssuer } from "#domain/pki/crl.ts";

/** crlFileName is the kept CRL's name beside the identity (a file of the identity folder, an object of the identity bucket). */
export const crlFileName = "identity-root.crl";

/** CrlFile is where the issued CRL is kept: an object of the identity bucket on AWS, a file of the identity folder locally. */
export interface CrlFile {
  read(): Promise<Buffer | undefined>;
  write(der: Buffer): Promise<void>;
}

/** KeptCrl is a stored CRL with what serving it needs. */
export interface KeptCrl {
  der: Buffer;
  thisUpdate: Date;
  nextUpdate: Date;
  /** A strong validator of these bytes (quoted SHA-256, for the ETag header). */
  etag: string;
}

/** CrlPolicy is a CRL's lifetime and when a new one is issued. */
export interface CrlPolicy {
  /** nextUpdate is this many days after thisUpdate. */
  validityDays: number;
  /** A CRL with less than this left before its nextUpdate is re-issued (AWS's daily issuer has two chances). */
  renewBeforeMs: number;
}

/** defaultCrlPolicy: a week's validity, re-issued with three days left. */
export const defaultCrlPolicy: CrlPolicy = { validityDays: 7, renewBeforeMs: 3 * 86_400_000 };

/**
 * storedCrl reads the kept CRL if it is this CA's and lists what Signet would list (nothing is
 * revoked): undefined when there is none, it is unreadable, another root's (the identity was
 * replaced) or its content differs. Its age is the caller's question.
 */
export async function storedCrl(file: CrlFile, issuerCertificate: X509Certificate): Promise<KeptCrl | undefined> {
  const der = await file.read();
  const facts = der ? readCrl(der) : undefined;
  if (!der || !facts) return undefined;
  if (facts.authorityKeyId !== crlKeyIdOf(issuerCertificate) || facts.revoked.length > 0) return undefined;
  return { der, thisUpdate: facts.thisUpdate, nextUpdate: facts.nextUpdate, etag: `"${createHash("sha256").update(der).digest("base64url")}"` };
}

/** isFresh says whether a kept CRL needs no new issue at `now`. */
function isFresh(crl: KeptCrl, now: Date, policy: CrlPolicy): boolean {
  return crl.nextUpdate.getTime() - now.getTime() > policy.renewBeforeMs;
}

/**
 * CrlKeeper issues a CA's CRL once and keeps it in a CrlFile, signing a new one only when the
 * kept one is missing, another root's, or near its nextUpdate: serving it costs no signature.
 * Concurrent callers in a process share one issue, and an issue reads the file again first, so
 * a caller that read before another's write signs nothing.
 */
export class CrlKeeper {
  #issuing: Promise<KeptCrl> | undefined;

  constructor(
    private readonly file: CrlFile,
    private readonly issuer: () => Promise<CrlIssuer>,
    private readonly policy: CrlPolicy = defaultCrlPolicy,
  ) {}

  /** current answers a fresh CRL of the issuer, issuing and storing it when needed. */
  async current(now: Date): Promise<KeptCrl> {
    if (this.#issuing) return this.#issuing;
    const issuer = await this.issuer();
    const kept = await storedCrl(this.file, issuer.certificate);
    if (kept && isFresh(kept, now, this.policy)) return kept;
    this.#issuing ??= this.#issue(issuer, now).finally(() => {
      this.#issuing = undefined;
    });
    return this.#issuing;
  }

  async #issue(issuer: CrlIssuer, now: Date): Promise<KeptCrl> {
    const kept = await storedCrl(this.file, issuer.certificate);
    if (kept && isFresh(kept, now, this.policy)) return kept;
    const der = await issueCrl(issuer, { now, validityDays: this.policy.validityDays });
    await this.file.write(der);
    return (await storedCrl(this.file, issuer.certificate)) ?? failedToKeep();
  }
}

function failedToKeep(): never {
  throw new Error("the CRL just written cannot be read back");
}

import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crlFileName, type CrlFile } from "#domain/signing/crl-keeper.ts";
import { createIdentityStore, type IdentityFiles } from "#domain/signing/identity-store.ts";
import type { SigningIdentityStore } from "#domain/signing/signing-identity.ts";

/** LocalIdentityOptions place the identity files. */
export interface LocalIdentityOptions {
  /** Folder of identity.p12 / identity.pem (created when missing). */
  dir: string;
  p12Password: string;
  /** The local server's own CRL URL, once it listens (named in a newly generated signing certificate). */
  crlUrl?: (() => string | undefined) | undefined;
}

/** localNoRevocationHint is what B-LT with a local identity that names no CRL distribution point answers. */
export const localNoRevocationHint =
  "B-LT needs revocation data, and the local signing certificate names no CRL distribution point (it was generated before Signet issued CRLs for it, or outside the local server): move the identity folder of the data folder (SIGNET_DATA_DIR, .signet by default) aside and restart the local server, which then generates a CRL-capable identity; B-B and B-T keep working with this one.";

/**
 * createLocalIdentityStore keeps the signing identity in a folder (the local data folder). A
 * generated identity is written as identity.pem, and its root CA's key as identity-root.pem (to
 * sign the CRL GET /v1/verify/crl serves), each with mode 0600 and an exclusive create.
 */
export function createLocalIdentityStore(options: LocalIdentityOptions): SigningIdentityStore {
  return createIdentityStore(localIdentityFiles(options.dir), {
    p12Password: options.p12Password,
    crls: { crlUrl: options.crlUrl ?? (() => undefined) },
    noRevocationHint: localNoRevocationHint,
  });
}

/** localIdentityFiles are the identity files in a folder (created 0700 when missing), each written 0600 with an exclusive create. */
export function localIdentityFiles(dir: string): IdentityFiles {
  const options = { dir };
  return {
    async read(name) {
      try {
        return await readFile(join(options.dir, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async createIfAbsent(name, text) {
      await mkdir(options.dir, { recursive: true, mode: 0o700 });
      try {
        await writeFile(join(options.dir, name), text, { flag: "wx", mode: 0o600 });
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      }
    },
    describe: (name) => join(options.dir, name),
  };
}

/** localCrlFile is the kept CRL in the identity folder (identity-root.crl, 0600), replaced whole by a rename. */
export function localCrlFile(dir: string): CrlFile {
  const path = join(dir, crlFileName);
  return {
    async read() {
      try {
        return await readFile(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async write(der) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const staged = `${path}.${process.pid}.tmp`;
      await writeFile(staged, der, { mode: 0o600 });
      await rename(staged, path);
    },
  };
}

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createIdentityStore, type IdentityFiles } from "#domain/signing/identity-store.ts";
import type { SigningIdentityStore } from "#domain/signing/signing-identity.ts";

/** LocalIdentityOptions place the identity files. */
export interface LocalIdentityOptions {
  /** Folder of identity.p12 / identity.pem (created when missing). */
  dir: string;
  p12Password: string;
}

/**
 * createLocalIdentityStore keeps the signing identity in a folder (the local data folder). A
 * generated identity is written as identity.pem with mode 0600 and an exclusive create.
 */
export function createLocalIdentityStore(options: LocalIdentityOptions): SigningIdentityStore {
  const files: IdentityFiles = {
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
  return createIdentityStore(files, options);
}

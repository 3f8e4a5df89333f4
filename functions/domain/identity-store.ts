import { SignetError } from "#domain/errors.ts";
import {
  IdentityFormatError,
  generateLocalIdentity,
  identityToPem,
  parseP12Identity,
  parsePemIdentity,
  type SigningIdentity,
  type SigningIdentityStore,
} from "#domain/signing-identity.ts";

/** identityFileNames are the files (or object keys) an operator may provide; the p12 wins. */
export const identityFileNames = { p12: "identity.p12", pem: "identity.pem" } as const;

/** IdentityFileName is one of identityFileNames. */
export type IdentityFileName = (typeof identityFileNames)[keyof typeof identityFileNames];

/**
 * IdentityFiles is where the identity files live (a folder, a bucket). Outages are raised as
 * SignetError by the implementation; a missing file is undefined.
 */
export interface IdentityFiles {
  read(name: IdentityFileName): Promise<Buffer | undefined>;
  /** Writes the file unless it exists; false when another writer got there first. */
  createIfAbsent(name: IdentityFileName, text: string): Promise<boolean>;
  /** Where a file is, for the log only (never sent to callers). */
  describe(name: IdentityFileName): string;
}

/**
 * createIdentityStore loads the signing identity once per process: identity.p12 (with the
 * operator's password) wins over identity.pem (private key + chain); when neither exists a
 * local root CA and a signing certificate it issues are generated and written (key, certificate,
 * root) with create-if-absent, so concurrent starts
 * settle on one key. A failed load is retried on the next call.
 */
export function createIdentityStore(files: IdentityFiles, options: { p12Password: string }): SigningIdentityStore {
  async function parse(name: IdentityFileName, bytes: Buffer): Promise<SigningIdentity> {
    try {
      return name === identityFileNames.p12 ? await parseP12Identity(bytes, options.p12Password) : parsePemIdentity(bytes.toString("utf8"));
    } catch (error) {
      // The caller sees the reason only (never the location, never key material); the location
      // and the original error travel in `cause`, which the pipeline logs.
      const reason = error instanceof IdentityFormatError ? error.message : "unreadable";
      throw new SignetError("SERVICE_UNAVAILABLE", `The service's signing identity cannot be used: ${reason}.`, {
        cause: new Error(`signing identity ${files.describe(name)}: ${reason}`, { cause: error }),
      });
    }
  }

  async function read(): Promise<SigningIdentity | undefined> {
    for (const name of [identityFileNames.p12, identityFileNames.pem]) {
      const bytes = await files.read(name);
      if (bytes) return parse(name, bytes);
    }
    return undefined;
  }

  async function loadOnce(): Promise<SigningIdentity> {
    const existing = await read();
    if (existing) return existing;
    const identity = await generateLocalIdentity();
    if (await files.createIfAbsent(identityFileNames.pem, identityToPem(identity))) return identity;
    return (await read())!;
  }

  let loading: Promise<SigningIdentity> | undefined;
  return {
    load() {
      loading ??= loadOnce().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
  };
}

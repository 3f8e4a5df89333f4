import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SignetError } from "#domain/errors.ts";
import {
  IdentityFormatError,
  generateIdentity,
  identityToPem,
  parseP12Identity,
  parsePemIdentity,
  type SigningIdentity,
  type SigningIdentityStore,
} from "#domain/signing-identity.ts";

/** LocalIdentityOptions place the identity files. */
export interface LocalIdentityOptions {
  /** Folder of identity.p12 / identity.pem (created when missing). */
  dir: string;
  p12Password: string;
}

async function readIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function unreadable(file: string, error: unknown): SignetError {
  if (error instanceof SignetError) return error;
  // The caller sees the reason only (never the server's file path, never key material); the path
  // and the original error travel in `cause`, which the pipeline logs.
  const reason = error instanceof IdentityFormatError ? error.message : "unreadable";
  return new SignetError("SERVICE_UNAVAILABLE", `The service's signing identity cannot be used: ${reason}.`, {
    cause: new Error(`signing identity file ${file}: ${reason}`, { cause: error }),
  });
}

/**
 * createLocalIdentityStore keeps the signing identity in a folder: an operator's identity.p12
 * (password from SIGNET_IDENTITY_P12_PASSWORD) wins, else identity.pem (private key + chain);
 * when neither exists a self-signed RSA-3072 identity "Signet Local Signing" is generated and
 * written as identity.pem (mode 0600, exclusive create so concurrent starts agree on one key).
 */
export function createLocalIdentityStore(options: LocalIdentityOptions): SigningIdentityStore {
  const p12Path = join(options.dir, "identity.p12");
  const pemPath = join(options.dir, "identity.pem");

  async function read(): Promise<SigningIdentity | undefined> {
    const p12 = await readIfPresent(p12Path);
    if (p12) {
      try {
        return await parseP12Identity(p12, options.p12Password);
      } catch (error) {
        throw unreadable(p12Path, error);
      }
    }
    const pem = await readIfPresent(pemPath);
    if (!pem) return undefined;
    try {
      return parsePemIdentity(pem.toString("utf8"));
    } catch (error) {
      throw unreadable(pemPath, error);
    }
  }

  let loading: Promise<SigningIdentity> | undefined;
  async function loadOnce(): Promise<SigningIdentity> {
    const existing = await read();
    if (existing) return existing;
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const identity = await generateIdentity();
    try {
      await writeFile(pemPath, identityToPem(identity), { flag: "wx", mode: 0o600 });
      return identity;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      return (await read())!;
    }
  }

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

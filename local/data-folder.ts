// The data folder holds the key database, the signing identity, uploads and the LibreOffice
// profile: readable by the user running Signet, nobody else.
import { chmodSync, mkdirSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

/** PRIVATE_FILE and PRIVATE_FOLDER are the modes of everything Signet creates in the data folder. */
export const PRIVATE_FILE = 0o600;
export const PRIVATE_FOLDER = 0o700;

/**
 * privateDataFolder creates the data folder 0700 (and tightens one left 0755 by an older version,
 * which keeps everything inside out of other users' reach) and sets this process's umask to 077,
 * so files written by code Signet does not control (dynalite's leveldb, LibreOffice's profile)
 * are 0600 in 0700 folders too. Signet's own writes also pass the modes explicitly. The umask is
 * the process's: the local server is the whole process, and a worker thread may not change it.
 */
export function privateDataFolder(dataDir: string): void {
  if (isMainThread) process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER });
  chmodSync(dataDir, PRIVATE_FOLDER);
}

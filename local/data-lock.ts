// One local server per data folder: dynalite's files and the signing identity are not safe to
// share between processes (a second dynalite on the same folder fails later with "Database is
// closed"), so the folder is claimed with a pid file first.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE, PRIVATE_FOLDER } from "#local/data-folder.ts";
import { StartupError } from "#local/startup-errors.ts";
import { processAlive } from "#adapters/process-alive.ts";

const LOCK_FILE = "server.pid";

/**
 * lockDataDir claims dataDir for this process and returns the release function; it throws a
 * StartupError when a running process holds it. A pid file left by a process that is gone is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx", mode: PRIVATE_FILE });
      return () => {
        if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processAlive(holder)) {
        throw new StartupError(
          `the data folder ${dataDir} is in use by another Signet server (pid ${holder}): stop that one, or set SIGNET_DATA_DIR to another folder`,
        );
      }
      rmSync(path, { force: true }); // left by a server that is gone
    }
  }
  throw new StartupError(`could not claim the data folder ${dataDir} (${path} keeps reappearing): set SIGNET_DATA_DIR to another folder`);
}

import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "#adapters/process-alive.ts";

/** workDirPrefix starts the name of every converter's private folder: signet-lo-<owner pid>-<random>. */
const workDirPrefix = "signet-lo-";

/** createWorkDir makes a private folder under the OS temp folder whose name carries this process id. */
export function createWorkDir(parent: string = tmpdir()): Promise<string> {
  return mkdtemp(join(parent, `${workDirPrefix}${process.pid}-`));
}

/**
 * sweepStaleWorkDirs removes the folders of converters whose process is gone (killed with -9, or
 * crashed before close): signet-lo-<pid>-* where no process <pid> is alive. Folders of live
 * processes and folders without an owner in their name are left alone. Returns the removed paths.
 */
export async function sweepStaleWorkDirs(parent: string = tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const owner = new RegExp(`^${workDirPrefix}(\\d+)-`).exec(name);
    if (!owner) continue;
    const pid = Number(owner[1]);
    if (pid === process.pid || processAlive(pid)) continue;
    await rm(join(parent, name), { recursive: true, force: true }).catch(() => undefined);
    removed.push(join(parent, name));
  }
  return removed;
}

/** slotTmp is a slot's LibreOffice TMPDIR (in a sandbox its /tmp), emptied after every kill. */
export function slotTmp(workDir: string, index: number): string {
  return join(workDir, "slots", String(index), "tmp");
}

/**
 * slotJob is the one job folder of a slot: every job the slot runs has its files there, and only
 * there, while it runs (emptied before and after), so a warm LibreOffice's sandbox binds this one
 * folder and never sees another job's files. Never removed: the bind holds on to the folder itself.
 */
export function slotJob(workDir: string, index: number): string {
  return join(workDir, "slots", String(index), "job");
}

/** emptyFolder removes what a folder holds, keeping the folder. */
export async function emptyFolder(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
}

import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

/** GroupResult is how a process run in its own process group ended. */
export interface GroupResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The last few KB of standard error, for the log. */
  stderr: string;
}

/** killGroup sends SIGKILL to a whole process group; a group that is already gone is fine. */
export function killGroup(pgid: number | undefined): void {
  if (!pgid || pgid <= 1) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: nothing left to kill
  }
}

/**
 * onlyZombies tells whether every process left in the group has exited and merely waits to be
 * reaped (state Z in /proc/<pid>/stat). A killed LibreOffice's processes linger so until their
 * parent or init collects them, which took 1.5 s here; they hold no memory, files or CPU. False
 * when /proc cannot say (not Linux): then only an empty group counts as gone.
 */
function onlyZombies(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 0x30 || entry.charCodeAt(0) > 0x39) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // exited meanwhile
    }
    // After the command's closing parenthesis: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return false;
  }
  return true;
}

/**
 * groupGone resolves once no process of the group is left running (SIGKILL is asynchronous;
 * exited processes waiting to be reaped count as gone), or after maxWaitMs, so a replacement
 * LibreOffice never runs beside the one it replaces.
 */
export async function groupGone(pgid: number | undefined, maxWaitMs = 3000): Promise<void> {
  if (!pgid || pgid <= 1) return;
  const until = Date.now() + maxWaitMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return; // ESRCH: the group is empty
    }
    if (onlyZombies(pgid) || Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** processStates lists every process of /proc with its state letter (Z: exited, waiting to be reaped); empty where /proc is missing. */
function processStates(): Array<{ pid: number; state: string }> {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: Array<{ pid: number; state: string }> = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      found.push({ pid: Number(entry), state: stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) });
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** carries tells whether a process's environment holds `entry` (NAME=value); false when it cannot be read (gone, or not ours). */
function carries(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry);
  } catch {
    return false;
  }
}

/**
 * killMarked sends SIGKILL to every live process but this one whose environment holds `entry`
 * (NAME=value) and resolves once none is left running, or after maxWaitMs: the processes a
 * LibreOffice left behind outside its process group (a child that called setsid keeps the
 * environment it was started with). Answers how many it found. Linux only (/proc).
 */
export async function killMarked(entry: string, maxWaitMs = 3000): Promise<number> {
  const killed = new Set<number>();
  const until = Date.now() + maxWaitMs;
  for (;;) {
    const live = processStates().filter(({ pid, state }) => pid !== process.pid && state !== "Z" && carries(pid, entry));
    if (live.length === 0 || Date.now() >= until) return killed.size;
    for (const { pid } of live) {
      killed.add(pid);
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ESRCH: gone meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const STDERR_TAIL = 4096;

/** ParentGuard runs a command under `python uno-driver.py guard <pid>`, which kills its group when this process is gone. */
export interface ParentGuard {
  python: string;
  script: string;
}

/**
 * runGroup runs a command (argument array, never a shell) as the leader of a new process group
 * and kills the whole group when it exceeds timeoutMs and again when the leader exits, so
 * grandchildren such as soffice.bin never outlive the run. With a guard, the leader is the guard
 * (same group), so a kill -9 of this process takes the command along too. Rejects only when it
 * cannot start.
 */
export function runGroup(
  command: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs: number; guard?: ParentGuard },
): Promise<GroupResult> {
  return new Promise((resolve, reject) => {
    const { guard } = options;
    const argv = guard ? [guard.script, "guard", String(process.pid), command, ...args] : [...args];
    const child = spawn(guard ? guard.python : command, argv, { env: options.env, cwd: options.cwd, detached: true, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let timedOut = false;
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      killGroup(child.pid);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      killGroup(child.pid);
      child.stderr.destroy();
      resolve({ code, signal, timedOut, stderr });
    });
  });
}

import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { delimiter, join } from "node:path";

/**
 * IsolationMode says how LibreOffice is kept off the network: "auto" starts it in a network
 * namespace of its own when the system allows and runs it plainly otherwise; "none" never tries;
 * "required" refuses to convert without one.
 */
export type IsolationMode = "auto" | "none" | "required";

/** Isolation is what was found to work here, once: the command prefix every LibreOffice run gets. */
export interface Isolation {
  /** "netns": `unshare --net` (root); "userns-netns": `unshare --user --map-root-user --net`; "none": the host's network. */
  network: "netns" | "userns-netns" | "none";
  /** Address-space limit (bytes) of every LibreOffice process, or undefined when prlimit is missing. */
  memoryBytes: number | undefined;
  /** Prepended to the command that starts LibreOffice (or its UNO driver). */
  prefix: string[];
  /** One line for the start-up log. */
  summary: string;
}

function succeeds(command: string, args: string[], env: Record<string, string>): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 10_000 }, (error) => resolve(!error));
  });
}

async function findProgram(name: string, env: Record<string, string>): Promise<string | undefined> {
  for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    try {
      await access(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * detectIsolation tries, once, what this system allows: a network namespace with no interface
 * but a down loopback (util-linux `unshare --net` as root, or `unshare --user --map-root-user
 * --net` where unprivileged user namespaces are enabled), and an address-space limit (util-linux
 * `prlimit --as`). Each is probed by running `true` under it. Lambda allows neither namespace;
 * there the VPC without egress is the boundary (docs/reliability.md).
 */
export async function detectIsolation(mode: IsolationMode, memoryBytes: number | undefined, env: Record<string, string>): Promise<Isolation> {
  const prefix: string[] = [];
  let limit: number | undefined;
  const prlimit = memoryBytes ? await findProgram("prlimit", env) : undefined;
  if (prlimit && memoryBytes && (await succeeds(prlimit, [`--as=${memoryBytes}`, "--", "true"], env))) {
    prefix.push(prlimit, `--as=${memoryBytes}`, "--");
    limit = memoryBytes;
  }
  let network: Isolation["network"] = "none";
  const unshare = mode === "none" ? undefined : await findProgram("unshare", env);
  if (unshare) {
    // The driver and LibreOffice share the namespace: the UNO pipe (a socket file named after the
    // uid, which differs inside a user namespace) then stays between them.
    if (await succeeds(unshare, ["--net", "--", "true"], env)) {
      prefix.push(unshare, "--net", "--");
      network = "netns";
    } else if (await succeeds(unshare, ["--user", "--map-root-user", "--net", "--", "true"], env)) {
      prefix.push(unshare, "--user", "--map-root-user", "--net", "--");
      network = "userns-netns";
    }
  }
  // Without prlimit (the Lambda image has none) LibreOffice runs uncapped: said once here; on
  // Lambda the function's memory size bounds the whole container instead.
  const memory = limit
    ? `address space capped at ${Math.round(limit / 1024 / 1024)} MB per process`
    : !memoryBytes
      ? "no memory cap (SIGNET_LIBREOFFICE_MEMORY_MB=0)"
      : prlimit
        ? "no memory cap (prlimit --as failed here)"
        : "no memory cap (prlimit is not installed; the process's own memory limit, on Lambda the function's memory size, bounds it)";
  const where = {
    netns: "in a network namespace without interfaces (unshare --net)",
    "userns-netns": "in a user and network namespace without interfaces (unshare --user --map-root-user --net)",
    none: mode === "none" ? "with the host's network (SIGNET_LIBREOFFICE_ISOLATION=none)" : "with the host's network: no network namespace is available here",
  }[network];
  return { network, memoryBytes: limit, prefix, summary: `LibreOffice runs ${where}; ${memory}` };
}

/** confine prefixes a command with the isolation: [command, args] to hand to spawn. */
export function confine(isolation: Isolation | undefined, command: string, args: readonly string[]): [string, string[]] {
  if (!isolation || isolation.prefix.length === 0) return [command, [...args]];
  const [first, ...rest] = isolation.prefix;
  return [first!, [...rest, command, ...args]];
}

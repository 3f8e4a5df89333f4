import { execFile } from "node:child_process";
import { constants, existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { access } from "node:fs/promises";
import { basename, delimiter, dirname, join, relative } from "node:path";

/**
 * IsolationMode says how LibreOffice is boxed in: "auto" uses the best box this system allows (a
 * bubblewrap sandbox, else a network namespace, else none); "off" (formerly "none") never tries;
 * "required" refuses to convert, and the local server to start, without the bubblewrap sandbox.
 */
export type IsolationMode = "auto" | "off" | "none" | "required";

/** Isolation is what was found to work here, once: how every LibreOffice run is started. */
export interface Isolation {
  /** "netns": own network namespace as root (bwrap --unshare-net, or unshare --net); "userns-netns": the same inside a user namespace; "none": the host's network. */
  network: "netns" | "userns-netns" | "none";
  /** "bwrap": LibreOffice sees the system's folders read-only and its own job's folder, nothing else (own mount and PID namespaces); "none": every file this process can read. */
  files: "bwrap" | "none";
  /** Address-space limit (bytes) of every LibreOffice process, or undefined when prlimit is missing. */
  memoryBytes: number | undefined;
  /** Prepended to the command that starts LibreOffice (or its UNO driver): limits, and unshare without a sandbox. */
  prefix: string[];
  /** The bubblewrap program and the arguments every sandbox starts with (system folders, namespaces), when files is "bwrap". */
  sandbox?: { bwrap: string; base: string[] };
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

// What of /etc LibreOffice, fontconfig, the dynamic linker and python read; never the whole of it
// (passwords, keys, the machine's configuration stay out).
const etcParts = ["fonts", "libreoffice", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone", "mime.types", "magic.mime"];

/** topLevel binds /bin, /lib, ... as the host has them: the same symlink (merged /usr) or a read-only folder. */
function topLevel(name: string): string[] {
  const path = `/${name}`;
  try {
    return lstatSync(path).isSymbolicLink() ? ["--symlink", readlinkSync(path), path] : ["--ro-bind", path, path];
  } catch {
    return [];
  }
}

/** installRoot is LibreOffice's own folder when it lives outside /usr (/opt/libreoffice*, a Lambda layer), to bind read-only. */
function installRoot(soffice: string): string | undefined {
  let program = dirname(soffice);
  try {
    program = dirname(realpathSync(soffice));
  } catch {
    // keep the unresolved folder
  }
  // An installation's soffice is in its program/ folder (/opt/libreoffice7.4/program); anything else gets its own folder only.
  const root = basename(program) === "program" ? dirname(program) : program;
  return relative("/usr", root).startsWith("..") ? root : undefined;
}

/**
 * sandboxBase is what every sandbox starts with: the system's folders read-only (/usr, the
 * merged-/usr links, the parts of /etc it needs, fontconfig's cache, LibreOffice's own folder and
 * the font settings named in the environment), its own /proc (PID namespace) and /dev, no network,
 * no other namespace shared, no capability, killed with its parent, in a new session.
 */
function sandboxBase(soffice: string, env: Record<string, string>): string[] {
  const etc = existsSync("/etc") ? readdirSync("/etc").filter((name) => etcParts.includes(name) || /^python3(\.\d+)?$/.test(name)) : [];
  const readOnly = [
    ...etc.map((name) => `/etc/${name}`),
    "/var/cache/fontconfig",
    installRoot(soffice),
    env.FONTCONFIG_PATH,
    env.FONTCONFIG_FILE ? dirname(env.FONTCONFIG_FILE) : undefined,
  ].filter((path): path is string => path !== undefined && path !== "");
  return [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/usr",
    "/usr",
    ...["bin", "sbin", "lib", "lib32", "lib64"].flatMap(topLevel),
    ...[...new Set(readOnly)].flatMap((path) => ["--ro-bind-try", path, path]),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
  ];
}

/** detectSandbox probes bubblewrap with the real sandbox (a tmpfs /tmp) around `true`: its base arguments when it works here. */
async function detectSandbox(mode: IsolationMode, soffice: string, env: Record<string, string>): Promise<Isolation["sandbox"]> {
  if (mode === "off" || mode === "none") return undefined;
  const bwrap = await findProgram("bwrap", env);
  const truth = await findProgram("true", env);
  if (!bwrap || !truth) return undefined;
  const base = sandboxBase(soffice, env);
  return (await succeeds(bwrap, [...base, "--tmpfs", "/tmp", "--clearenv", "--", truth], env)) ? { bwrap, base } : undefined;
}

/** detectNetwork finds the unshare prefix (without a sandbox): `unshare --net` as root, else in a user namespace. */
async function detectNetwork(mode: IsolationMode, env: Record<string, string>): Promise<{ network: Isolation["network"]; prefix: string[] }> {
  const unshare = mode === "off" || mode === "none" ? undefined : await findProgram("unshare", env);
  if (unshare) {
    // The driver and LibreOffice share the namespace: the UNO pipe (a socket file named after the
    // uid, which differs inside a user namespace) then stays between them.
    if (await succeeds(unshare, ["--net", "--", "true"], env)) return { network: "netns", prefix: [unshare, "--net", "--"] };
    if (await succeeds(unshare, ["--user", "--map-root-user", "--net", "--", "true"], env)) {
      return { network: "userns-netns", prefix: [unshare, "--user", "--map-root-user", "--net", "--"] };
    }
  }
  return { network: "none", prefix: [] };
}

function memoryWords(limit: number | undefined, memoryBytes: number | undefined, prlimit: string | undefined): string {
  if (limit) return `address space capped at ${Math.round(limit / 1024 / 1024)} MB per process`;
  if (!memoryBytes) return "no memory cap (SIGNET_LIBREOFFICE_MEMORY_MB=0)";
  return prlimit
    ? "no memory cap (prlimit --as failed here)"
    : "no memory cap (prlimit is not installed; the process's own memory limit, on Lambda the function's memory size, bounds it)";
}

function placeWords(network: Isolation["network"], files: Isolation["files"], mode: IsolationMode): string {
  if (files === "bwrap") {
    return "in a bubblewrap sandbox: it sees the system's folders read-only and its own job's files only (own mount and PID namespaces), in a network namespace without interfaces";
  }
  if (mode === "off" || mode === "none") return "with the host's network and files (SIGNET_LIBREOFFICE_ISOLATION=off)";
  const files_ = "sees every file this process can read (no working bubblewrap: install bubblewrap)";
  return {
    netns: `in a network namespace without interfaces (unshare --net) but ${files_}`,
    "userns-netns": `in a user and network namespace without interfaces (unshare --user --map-root-user --net) but ${files_}`,
    none: `with the host's network: no network namespace is available here, and ${files_}`,
  }[network];
}

/**
 * detectIsolation tries, once, what this system allows: a bubblewrap sandbox (Debian's
 * `bubblewrap`: mount, PID and network namespaces, the system read-only), else a network
 * namespace with no interface but a down loopback (util-linux `unshare --net` as root, or
 * `unshare --user --map-root-user --net` where unprivileged user namespaces are enabled), and an
 * address-space limit (util-linux `prlimit --as`). Each is probed by running `true` under it.
 * Lambda allows no namespace: there LibreOffice is recycled per job and the VPC without egress is
 * the boundary (docs/reliability.md).
 */
export async function detectIsolation(
  mode: IsolationMode,
  memoryBytes: number | undefined,
  env: Record<string, string>,
  soffice = "/usr/bin/soffice",
): Promise<Isolation> {
  const prefix: string[] = [];
  let limit: number | undefined;
  const prlimit = memoryBytes ? await findProgram("prlimit", env) : undefined;
  if (prlimit && memoryBytes && (await succeeds(prlimit, [`--as=${memoryBytes}`, "--", "true"], env))) {
    prefix.push(prlimit, `--as=${memoryBytes}`, "--");
    limit = memoryBytes;
  }
  const sandbox = await detectSandbox(mode, soffice, env);
  // bwrap's own --unshare-net is the network namespace (one in a user namespace when not root).
  const net = sandbox ? { network: process.getuid?.() === 0 ? ("netns" as const) : ("userns-netns" as const), prefix: [] } : await detectNetwork(mode, env);
  const files = sandbox ? "bwrap" : "none";
  // Without prlimit (the Lambda image has none) LibreOffice runs uncapped: said once here; on
  // Lambda the function's memory size bounds the whole container instead.
  const summary = `LibreOffice runs ${placeWords(net.network, files, mode)}; ${memoryWords(limit, memoryBytes, prlimit)}`;
  return { network: net.network, files, memoryBytes: limit, prefix: [...prefix, ...net.prefix], ...(sandbox ? { sandbox } : {}), summary };
}

/** SandboxFolders are the host folders one LibreOffice run may see, besides the system's. */
export interface SandboxFolders {
  /** Its profile (read-write). */
  profile: string;
  /** Its /tmp (read-write): the slot's, shared by the warm instance and a one-shot handing a job over (LibreOffice's pipes live in /tmp). */
  tmp: string;
  /** The job's folder (read-write): the only documents it can read. */
  job?: string;
  /** Read-only files it runs (the UNO driver). */
  programs?: string[];
}

/** Confinement is one run's view: where a host path is inside, and the command that starts it there. */
export interface Confinement {
  /** inside maps a host path under the profile, job or program files to its path in the sandbox (unchanged without one). */
  inside(hostPath: string): string;
  /** command prefixes a command with the isolation: [command, args] to hand to spawn. */
  command(command: string, args: readonly string[]): [string, string[]];
}

/** unconfined is the view of a run without isolation: host paths, the command as it is. */
export const unconfined: Confinement = { inside: (path) => path, command: (command, args) => [command, [...args]] };

/**
 * confinement builds one run's sandbox: the system folders read-only, `folders` bound at
 * /signet/<their host path> (the host path stays readable in `ps`, and no mount point is ever made
 * on the host), a clean environment (HOME and TMPDIR are its /tmp). Without a sandbox the paths
 * stay the host's and only the prefix (limits, unshare) applies.
 */
export function confinement(isolation: Isolation | undefined, folders: SandboxFolders, env: Record<string, string>): Confinement {
  const sandbox = isolation?.sandbox;
  if (!isolation || !sandbox) return { ...unconfined, command: (command, args) => confine(isolation, command, args) };
  type Bind = [host: string, target: string, how: "--bind" | "--ro-bind"];
  const binds: Bind[] = [
    [folders.profile, `/signet${folders.profile}`, "--bind"],
    ...(folders.job ? [[folders.job, `/signet${folders.job}`, "--bind"] satisfies Bind] : []),
    ...(folders.programs ?? []).map((path): Bind => [path, `/signet${path}`, "--ro-bind"]),
  ];
  const inside = (path: string) => {
    for (const [host, target] of binds) {
      const rest = relative(host, path);
      if (rest === "") return target;
      if (!rest.startsWith("..") && !rest.startsWith("/")) return join(target, rest);
    }
    return path;
  };
  const variables = Object.entries({ ...env, HOME: "/tmp", TMPDIR: "/tmp" }).flatMap(([name, value]) => ["--setenv", name, value]);
  // Its /tmp first, so that a system folder configured below /tmp (a test's stand-in soffice) stays visible.
  const args = [
    "--bind",
    folders.tmp,
    "/tmp",
    ...sandbox.base,
    ...binds.flatMap(([host, target, how]) => [how, host, target]),
    "--chdir",
    "/tmp",
    "--clearenv",
    ...variables,
    "--",
  ];
  return { inside, command: (command, rest) => confine({ ...isolation, prefix: [...isolation.prefix, sandbox.bwrap, ...args] }, command, rest) };
}

/** confine prefixes a command with the isolation's prefix: [command, args] to hand to spawn. */
export function confine(isolation: Isolation | undefined, command: string, args: readonly string[]): [string, string[]] {
  if (!isolation || isolation.prefix.length === 0) return [command, [...args]];
  const [first, ...rest] = isolation.prefix;
  return [first!, [...rest, command, ...args]];
}

import { constants, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { access, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { unconfined, type Confinement } from "#adapters/libreoffice/isolation.ts";
import { runGroup, type ParentGuard } from "#adapters/libreoffice/process-group.ts";

// Settings every LibreOffice profile starts with: macros can never run (security level 3 = very
// high, execution disabled), linked content from untrusted documents is not fetched, and nothing
// phones home or tries to recover documents of a killed run.
const settings: Array<{ path: string; name: string; value: string }> = [
  { path: "/org.openoffice.Office.Common/Security/Scripting", name: "MacroSecurityLevel", value: "3" },
  { path: "/org.openoffice.Office.Common/Security/Scripting", name: "DisableMacrosExecution", value: "true" },
  { path: "/org.openoffice.Office.Common/Security/Scripting", name: "BlockUntrustedRefererLinks", value: "true" },
  { path: "/org.openoffice.Office.Common/Security/Scripting", name: "WarnAlienFormat", value: "false" },
  { path: "/org.openoffice.Office.Jobs/Jobs/org.openoffice.Office.Jobs:Job['UpdateCheck']/Arguments", name: "AutoCheckEnabled", value: "false" },
  { path: "/org.openoffice.Office.Common/Misc", name: "FirstRun", value: "false" },
  { path: "/org.openoffice.Office.Common/Misc", name: "UseOpenCL", value: "false" },
  { path: "/org.openoffice.Office.Common/Misc", name: "CollectUsageInformation", value: "false" },
  { path: "/org.openoffice.Office.Recovery/AutoSave", name: "Enabled", value: "false" },
  { path: "/org.openoffice.Office.Recovery/RecoveryInfo", name: "Enabled", value: "false" },
  { path: "/org.openoffice.Office.Common/Save/Document", name: "CreateBackup", value: "false" },
  { path: "/org.openoffice.Office.Common/Load", name: "UpdateDocMode", value: "0" },
];

/** registryModifications is the registrymodifications.xcu every Signet LibreOffice profile is seeded with. */
const registryModifications = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
  ...settings.map((s) => `<item oor:path="${s.path.replace(/'/g, "&apos;")}"><prop oor:name="${s.name}" oor:op="fuse"><value>${s.value}</value></prop></item>`),
  "</oor:items>",
  "",
].join("\n");

/** The file in a profile template holding the settings it was made with (a stale template is not used). */
const TEMPLATE_SETTINGS = "signet-settings.xcu";

/** registryModificationsText is the settings file every Signet profile starts with (the image build writes it for its template). */
export function registryModificationsText(): string {
  return registryModifications;
}

/** usableTemplate tells whether `template` is a complete profile made with the current settings. */
function usableTemplate(template: string | undefined): template is string {
  if (!template || !existsSync(join(template, "user"))) return false;
  try {
    return readFileSync(join(template, TEMPLATE_SETTINGS), "utf8") === registryModifications;
  } catch {
    return false;
  }
}

/**
 * seedProfile prepares a LibreOffice user installation in `dir` and returns its file URL for
 * -env:UserInstallation. With a usable template (a complete profile made with the same settings,
 * see makeProfileTemplate) it is a copy of it, which LibreOffice starts on about 0.1-0.2 s faster
 * than on an empty one; otherwise it holds only the seeded settings and LibreOffice fills in the
 * rest on first start. A profile LibreOffice already initialised is left alone. Synchronous: a
 * few small files, and a warm instance is created synchronously by the slot pool.
 */
export function seedProfile(dir: string, template?: string): string {
  const file = join(dir, "user", "registrymodifications.xcu");
  if (!existsSync(file)) {
    if (usableTemplate(template)) {
      cpSync(template, dir, { recursive: true });
    } else {
      mkdirSync(join(dir, "user"), { recursive: true, mode: 0o700 });
      writeFileSync(file, registryModifications, { mode: 0o600 });
    }
  }
  return pathToFileURL(dir).href;
}

/**
 * makeProfileTemplate makes `template` a complete profile with the seeded settings, unless it
 * already is one: a headless soffice initialises a seeded profile in a sibling folder and quits,
 * then the folder is renamed into place (never half-written). Resolves false when it could not
 * (a read-only folder, LibreOffice failing); conversions then seed empty profiles as before.
 */
export async function makeProfileTemplate(
  soffice: string,
  template: string,
  env: Record<string, string>,
  timeoutMs: number,
  guard?: ParentGuard,
  confinement?: (profile: string) => Confinement,
): Promise<boolean> {
  if (usableTemplate(template)) return true;
  const building = `${template}.${process.pid}.tmp`;
  try {
    await rm(building, { recursive: true, force: true });
    seedProfile(building);
    // As every LibreOffice run: its own process group, killed whole at the time-out and when it
    // ends, in the sandbox (seeing only the profile it makes).
    const box = confinement?.(building) ?? unconfined;
    const [command, args] = box.command(soffice, [
      `-env:UserInstallation=${pathToFileURL(box.inside(building)).href}`,
      "--headless",
      "--invisible",
      "--nodefault",
      "--nolockcheck",
      "--nologo",
      "--norestore",
      "--terminate_after_init",
    ]);
    const run = await runGroup(command, args, { env, cwd: dirname(building), timeoutMs, ...(guard ? { guard } : {}) });
    if (run.timedOut || run.code !== 0 || !existsSync(join(building, "user"))) return false;
    await writeFile(join(building, TEMPLATE_SETTINGS), registryModifications, { mode: 0o600 });
    await rm(template, { recursive: true, force: true });
    await mkdir(dirname(template), { recursive: true });
    await rename(building, template);
    return true;
  } catch {
    return false;
  } finally {
    await rm(building, { recursive: true, force: true }).catch(() => undefined); // gone after the rename
  }
}

// Variables soffice may see; everything else (AWS_* credentials above all) is withheld.
const passThrough = [
  "PATH",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "FONTCONFIG_PATH",
  "FONTCONFIG_FILE",
  "LD_LIBRARY_PATH",
  "URE_BOOTSTRAP",
  "UNO_PATH",
  "PYTHONHOME",
];

/**
 * sofficeEnvironment builds the allow-listed environment for LibreOffice and its UNO driver:
 * HOME and TMPDIR point at writable private folders, the headless VCL plugin is forced.
 */
export function sofficeEnvironment(home: string, source: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of passThrough) {
    const value = source[name];
    if (value !== undefined && value !== "") env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  env.LANG ??= "C.UTF-8";
  return { ...env, HOME: home, TMPDIR: home, SAL_USE_VCLPLUGIN: "svp", ...extra };
}

// Where LibreOffice lives in Lambda layers and container images when it is not on PATH.
const lambdaGlobs = ["/opt/instdir/program/soffice", "/opt/libreoffice/program/soffice", "/opt/program/soffice", "/usr/lib/libreoffice/program/soffice"];

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * locateSoffice finds the soffice binary: the configured path (SIGNET_SOFFICE) when given, else
 * PATH (soffice, libreoffice), else the usual Lambda layer locations (/opt/libreoffice*, /opt/instdir).
 * Returns undefined when there is none.
 */
export async function locateSoffice(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (configured) return (await executable(configured)) ? configured : undefined;
  for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    for (const name of ["soffice", "libreoffice"]) {
      if (await executable(join(dir, name))) return join(dir, name);
    }
  }
  const versioned = existsSync("/opt")
    ? readdirSync("/opt")
        .filter((name) => name.startsWith("libreoffice"))
        .map((name) => `/opt/${name}/program/soffice`)
    : [];
  for (const candidate of [...versioned, ...lambdaGlobs]) {
    if (await executable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * pythonCandidates lists interpreters that may see the uno module for a given soffice: the one
 * bundled with LibreOffice (official builds), then Debian's /usr/bin/python3 (python3-uno).
 * A pyenv python3 on PATH does not see Debian's uno, so PATH is not searched.
 */
export function pythonCandidates(soffice: string): string[] {
  let program = dirname(soffice);
  try {
    program = dirname(realpathSync(soffice));
  } catch {
    // keep the unresolved folder
  }
  return [join(program, "python"), "/usr/bin/python3"];
}

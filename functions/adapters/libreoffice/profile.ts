import { constants, existsSync, readdirSync, realpathSync } from "node:fs";
import { access, mkdir, writeFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

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

/**
 * seedProfile creates a LibreOffice user installation in `dir` holding only the seeded settings
 * and returns its file URL for -env:UserInstallation. LibreOffice fills in the rest on first start.
 */
export async function seedProfile(dir: string): Promise<string> {
  await mkdir(join(dir, "user"), { recursive: true, mode: 0o700 });
  const file = join(dir, "user", "registrymodifications.xcu");
  if (!existsSync(file)) await writeFile(file, registryModifications, { mode: 0o600 });
  return pathToFileURL(dir).href;
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

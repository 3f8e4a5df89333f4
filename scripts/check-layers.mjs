// npm run check: one composition root. Nothing under functions/adapters/ or functions/domain/ may
// import the configuration (#config, functions/config.ts) or the wiring (#wiring/*,
// functions/wiring/), and domain code does not read process.env: adapters take options, domain
// code takes ports, and functions/wiring/ alone reads the configuration and builds the
// per-container instances. Inside functions/, only the wiring and the entry files (functions/*.ts)
// may import #config (http/ takes what it needs as arguments), and no wiring file keeps an instance
// in a module-level `let`: a container (functions/wiring/container.ts) holds them, one per config.
// Exit code 1 names each offending line.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const layers = ["functions/adapters", "functions/domain"];
const forbidden = [
  { what: "the configuration", specifier: /^#config$/, path: join(root, "functions/config.ts") },
  { what: "the wiring", specifier: /^#wiring\//, path: join(root, "functions/wiring") + "/" },
];
// Static imports and re-exports (`from "x"`), side-effect imports (`import "x"`) and dynamic ones (`import("x")`).
const importPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

/** sourceFiles lists the .ts/.mts/.js/.mjs files under a folder. */
function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(m?ts|m?js)$/.test(entry.name) ? [path] : [];
  });
}

/** violation names what a specifier in `file` reaches that it may not, or undefined. */
function violation(file, specifier) {
  const target = specifier.startsWith(".") ? resolve(dirname(file), specifier) : undefined;
  const rule = forbidden.find((rule) => rule.specifier.test(specifier) || (target && (target === rule.path || target.startsWith(rule.path))));
  return rule?.what;
}

/**
 * domainEdges is the table of folders inside functions/domain/ and the folders each may import
 * from: one direction, base first. pki/ (DER, OIDs, RFC 3161, PKCS#12, RC2, CRL, CSR, the signer
 * port) and shared/ depend on nothing; verification reads PDFs and PKI; signing stands on
 * verification (pyHanko's direction), never the reverse. A new folder, or a new edge, is added here
 * on purpose, in the commit that needs it.
 */
const domainEdges = {
  shared: [],
  pki: ["shared"],
  pdf: ["shared"],
  "pdf-text": ["pdf", "shared"],
  "certificate-page": ["pdf", "pdf-text", "shared"],
  pictures: ["shared"],
  docx: ["pictures", "shared"],
  documents: ["docx", "pdf", "pictures", "shared"],
  "pdf-forms": ["pictures", "pdf", "pdf-text", "shared"],
  "pdf-tools": ["documents", "pdf-forms", "pictures", "pdf", "pdf-text", "shared"],
  keys: ["shared"],
  jobs: ["shared"],
  webhooks: ["jobs", "shared"],
  verification: ["pdf", "pki", "shared"],
  signing: ["verification", "certificate-page", "documents", "pdf-forms", "pictures", "pdf", "pdf-text", "pki", "shared"],
};
const domainRoot = join(root, "functions/domain") + "/";

/** domainFolderOf is the folder directly under functions/domain/ that holds `path`, or undefined outside it. */
function domainFolderOf(path) {
  return path.startsWith(domainRoot) ? path.slice(domainRoot.length).split("/")[0] : undefined;
}

/** domainEdgeProblem names an import between domain folders that domainEdges does not allow, or undefined. */
function domainEdgeProblem(file, specifier) {
  const from = domainFolderOf(file);
  const target = specifier.startsWith("#domain/")
    ? join(domainRoot, specifier.slice("#domain/".length))
    : specifier.startsWith(".")
      ? resolve(dirname(file), specifier)
      : undefined;
  const to = target && domainFolderOf(target);
  if (!from || !to || from === to) return undefined;
  if (!(from in domainEdges)) return `is in functions/domain/${from}/, a folder the table in scripts/check-layers.mjs does not know`;
  if (!domainEdges[from].includes(to))
    return `imports functions/domain/${to}/ ("${specifier}"), which domain/${from}/ may not (allowed: ${domainEdges[from].join(", ") || "nothing"})`;
  return undefined;
}

const problems = [];
for (const file of layers.flatMap((layer) => sourceFiles(join(root, layer)))) {
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(importPattern)) {
    const what = violation(file, match[1]);
    if (!what) continue;
    const line = text.slice(0, match.index).split("\n").length;
    problems.push(`${relative(root, file)}:${line}: imports ${what} ("${match[1]}")`);
  }
  if (!file.startsWith(domainRoot)) continue;
  for (const match of text.matchAll(importPattern)) {
    const problem = domainEdgeProblem(file, match[1]);
    if (problem) problems.push(`${relative(root, file)}:${text.slice(0, match.index).split("\n").length}: ${problem}`);
  }
  for (const match of text.matchAll(/\bprocess\.env\b/g)) {
    problems.push(`${relative(root, file)}:${text.slice(0, match.index).split("\n").length}: reads process.env (domain code takes its settings as arguments)`);
  }
}

// #config inside functions/: the wiring and the entry files only (adapters and domain are refused above).
const configReaders = (file) => dirname(file) === join(root, "functions") || file.startsWith(join(root, "functions/wiring") + "/");
for (const file of sourceFiles(join(root, "functions")).filter((file) => !layers.some((layer) => file.startsWith(join(root, layer) + "/")))) {
  if (configReaders(file)) continue;
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(importPattern)) {
    if (violation(file, match[1]) !== "the configuration") continue;
    const line = text.slice(0, match.index).split("\n").length;
    problems.push(
      `${relative(root, file)}:${line}: imports the configuration ("${match[1]}"); only functions/wiring/ and the entry files may (take the values as arguments)`,
    );
  }
}

// No module-level `let` in the wiring: an instance lives in a container, made from the config it was given.
for (const file of sourceFiles(join(root, "functions/wiring"))) {
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(/^let\s+(\w+)/gm)) {
    const line = text.slice(0, match.index).split("\n").length;
    problems.push(`${relative(root, file)}:${line}: module-level let ${match[1]} (keep instances in the container, functions/wiring/container.ts)`);
  }
}

// Test helpers build containers from a config (test/helpers/container.ts, local-api.ts); they never write process.env.
const envWrite = /process\.env(?:\.\w+|\[[^\]]+\])\s*(?:\?\?=|\|\|=|=(?!=))|delete\s+process\.env|Object\.assign\(\s*process\.env/g;
for (const file of sourceFiles(join(root, "test/helpers"))) {
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(envWrite)) {
    problems.push(
      `${relative(root, file)}:${text.slice(0, match.index).split("\n").length}: writes process.env (pass settings in the container's config instead)`,
    );
  }
}

if (problems.length > 0) {
  process.stderr.write(
    `${problems.join("\n")}\n\nAdapters and domain code take options and ports; only functions/wiring/ reads the configuration and builds instances (docs: STYLE habit 13). Domain folders import one way: see domainEdges in scripts/check-layers.mjs.\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `check-layers: no file under ${layers.join(" or ")} imports #config or #wiring; only functions/wiring/ and the entry files import #config; no module-level let in functions/wiring/; domain code reads no process.env; no test helper writes it; domain folders import only along the table's edges\n`,
);

#!/usr/bin/env node
// Installs what Signet needs and is missing: node modules (npm), then LibreOffice (Writer, Calc and
// Impress), poppler-utils,
// qpdf and the fonts (for the tests also chromium, curl, jq, NSS tools and mupdf-tools) through
// apt-get when running as root on Debian/Ubuntu. Runs before `npm start` and `npm test`; does
// nothing when everything is in place. Node built-ins only: this runs before node_modules exists.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const forTests = process.env.npm_lifecycle_event === "pretest" || process.argv.includes("--test");

function log(message) {
  process.stdout.write(`[setup] ${message}\n`);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed with exit code ${result.status}`);
  }
}

function has(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

function hasFont(family) {
  if (!has("fc-list")) return false;
  try {
    return execFileSync("fc-list", [family], { encoding: "utf8" }).trim() !== "";
  } catch {
    return false;
  }
}

// 1. Node modules: install when missing or older than the lock file.
const marker = join(root, "node_modules", ".package-lock.json");
const lock = join(root, "package-lock.json");
if (!existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs)) {
  log("installing node modules (npm ci)");
  run("npm", ["ci", "--no-fund", "--no-audit"]);
}

// 2. System packages: command or font -> the Debian package that provides it.
const wanted = [
  { ok: () => has("soffice"), pkg: "libreoffice-writer-nogui", why: "DOCX to PDF conversion" },
  { ok: () => existsSync("/usr/lib/libreoffice/program/libsclo.so"), pkg: "libreoffice-calc-nogui", why: "spreadsheets to PDF" },
  { ok: () => existsSync("/usr/lib/libreoffice/program/libslideshowlo.so"), pkg: "libreoffice-impress-nogui", why: "presentations to PDF" },
  { ok: () => existsSync("/usr/lib/python3/dist-packages/uno.py"), pkg: "python3-uno", why: "the warm LibreOffice path" },
  { ok: () => has("pdfsig") && has("pdftotext") && has("pdfinfo"), pkg: "poppler-utils", why: "PDF checks" },
  { ok: () => has("qpdf"), pkg: "qpdf", why: "PDF structure checks" },
  { ok: () => has("openssl"), pkg: "openssl", why: "the test timestamp authority" },
  { ok: () => hasFont("Carlito"), pkg: "fonts-crosextra-carlito", why: "Calibri-compatible metrics" },
  { ok: () => hasFont("Caladea"), pkg: "fonts-crosextra-caladea", why: "Cambria-compatible metrics" },
  { ok: () => hasFont("Liberation Sans"), pkg: "fonts-liberation2", why: "Arial/Times/Courier-compatible metrics" },
  {
    ok: () => existsSync("/usr/share/fonts/truetype/hanazono/HanaMinB.ttf"),
    pkg: "fonts-hanazono",
    why: "CJK Extension A/B on the certificate page (HanaMinA/B, SIGNET_EXTRA_FONTS_DIR)",
  },
  ...(forTests
    ? [
        { ok: () => existsSync("/usr/bin/chromium"), pkg: "chromium", why: "the API reference browser test" },
        { ok: () => has("curl") && has("jq"), pkg: "curl jq", why: "the shell walk-through test" },
        { ok: () => has("certutil"), pkg: "libnss3-tools", why: "pdfsig trusting the local root CA (NSS database)" },
        { ok: () => has("mutool"), pkg: "mupdf-tools", why: "the certificate page read by a second PDF reader (MuPDF)" },
      ]
    : []),
];
const missing = wanted.filter((item) => !item.ok());
if (missing.length > 0) {
  const packages = missing.flatMap((item) => item.pkg.split(" "));
  const canApt = process.getuid?.() === 0 && existsSync("/etc/debian_version") && has("apt-get");
  if (canApt) {
    log(`installing ${packages.join(", ")} with apt-get (${missing.map((item) => item.why).join("; ")})`);
    run("apt-get", ["update"]);
    run("apt-get", ["install", "-y", "--no-install-recommends", ...packages]);
  } else {
    log(`missing system packages: ${packages.join(" ")}`);
    log(`install them with: sudo apt-get install -y --no-install-recommends ${packages.join(" ")}`);
    log("(or set SIGNET_SOFFICE to a LibreOffice soffice binary). Conversion-dependent features fail until then.");
  }
}

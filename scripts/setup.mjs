#!/usr/bin/env node
// Installs what Signet needs and is missing: node modules (npm), then LibreOffice, poppler-utils,
// qpdf and the fonts (for the tests also chromium, curl, jq, NSS tools and mupdf-tools) through
// apt-get when running as root on Debian/Ubuntu, and for the tests AWS's cfn-lint with pip and
// the Lambda runtime interface client (aws-lambda-ric, a native build) into .tools/. Runs before `npm start` and `npm test`; does
// nothing when everything is in place. Node built-ins only: this runs before node_modules exists.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
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

// 3. Tests only: AWS's cfn-lint (Python; the npm package of that name is another project) for
// test/infra/template-checks.test.ts. One on PATH will do; otherwise it goes into the project's
// tools environment, .tools/python (a venv), with pip where the Python package index is reachable.
const toolsCfnLint = join(root, ".tools", "python", "bin", "cfn-lint");
if (forTests && !has("cfn-lint") && !existsSync(toolsCfnLint)) {
  const venv = join(root, ".tools", "python");
  const made = has("python3") && spawnSync("python3", ["-m", "venv", venv], { stdio: "inherit" }).status === 0;
  const installed = made && spawnSync(join(venv, "bin", "pip"), ["install", "--quiet", "cfn-lint>=1.51,<2"], { stdio: "inherit" }).status === 0;
  if (installed) log("installed cfn-lint into .tools/python");
  else {
    log("could not install AWS's cfn-lint (needs python3 with venv, Debian's python3-venv, and the Python package index)");
    log("install it yourself (pipx install cfn-lint, or pip install cfn-lint) or put one on PATH; the cfn-lint test fails until then");
  }
}

// 4. Tests only, on Linux: the Node.js Lambda runtime interface client, aws-lambda-ric (Apache-2.0,
// AWS's; 3 MB), for test/integration/runtime-client.test.ts. Its install builds curl, aws-lambda-cpp
// and a node-gyp addon from the sources it ships (cmake, make, g++; several minutes once), so it
// lives in its own tools folder, .tools/ric, not in the project's dependencies: a failed build never
// breaks npm ci. node-gyp would download Node's headers; the `node` dev dependency carries them, so
// they are handed over (npm_config_nodedir) and the build works offline.
const RIC_VERSION = "4.0.2";
const ricDir = join(root, ".tools", "ric");
const ricNative = join(ricDir, "node_modules", "aws-lambda-ric", "rapid-client.node");
if (forTests && process.platform === "linux" && !existsSync(ricNative)) {
  const nodePackages = join(root, "node_modules", "node", "node_modules");
  const nodeDir = existsSync(nodePackages)
    ? readdirSync(nodePackages)
        .map((name) => join(nodePackages, name))
        .find((dir) => existsSync(join(dir, "include", "node", "node.h")))
    : undefined;
  mkdirSync(ricDir, { recursive: true });
  writeFileSync(join(ricDir, "package.json"), `${JSON.stringify({ private: true, dependencies: { "aws-lambda-ric": RIC_VERSION } }, null, 2)}\n`);
  log(`building aws-lambda-ric ${RIC_VERSION} into .tools/ric (native; several minutes, once)`);
  const env = { ...process.env, ...(nodeDir ? { npm_config_nodedir: nodeDir, PATH: `${join(nodeDir, "bin")}:${process.env.PATH}` } : {}) };
  const built = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--foreground-scripts"], { cwd: ricDir, stdio: "inherit", env });
  if (built.status !== 0 || !existsSync(ricNative)) {
    log("could not build aws-lambda-ric: it needs cmake, make and g++ (Debian: cmake build-essential), and Node 22's headers");
    log("(the node dev dependency's, or a download by node-gyp); the runtime-client test fails until then");
  }
}

#!/usr/bin/env node
// Installs what Signet needs and is missing: node modules (npm), then LibreOffice (Writer, Calc and
// Impress), poppler-utils, qpdf and the fonts (for the tests also chromium, curl, jq, NSS tools,
// mupdf-tools and Python's requests) through apt-get when running as root on Debian/Ubuntu; for
// the tests also pyHanko (the independent signature validator) into .tools/pyhanko and AWS's
// cfn-lint into .tools/python with pip, and the Lambda runtime interface client (aws-lambda-ric, a
// native build) into .tools/ric. Without root or PyPI it prints the apt-get and pip lines to run
// and carries on. Runs before `npm start` and `npm test`; does nothing when everything is in
// place. Node built-ins only: this runs before node_modules exists.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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

function pythonImports(python, modules) {
  return spawnSync(python, ["-c", `import ${modules.join(", ")}`], { stdio: "ignore" }).status === 0;
}

// Debian's python3 runs pyHanko from a folder (SIGNET_PYHANKO) with these packages.
const systemPython = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const pyhankoDebianModules = ["asn1crypto", "oscrypto", "tzlocal", "uritools", "requests", "yaml", "qrcode", "click", "cryptography"];
const pyhankoDebianPackages = pyhankoDebianModules.map((module) => `python3-${module}`).join(" ");

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
  { ok: () => has("bwrap"), pkg: "bubblewrap", why: "the sandbox LibreOffice runs in (it sees only its own job's files)" },
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
        { ok: () => pythonImports(systemPython, ["requests"]), pkg: "python3-requests", why: "the Python code samples" },
        ...(process.env.SIGNET_PYHANKO
          ? [{ ok: () => pythonImports(systemPython, pyhankoDebianModules), pkg: pyhankoDebianPackages, why: "pyHanko's dependencies (SIGNET_PYHANKO)" }]
          : [{ ok: () => pythonImports(systemPython, ["ensurepip", "venv"]), pkg: "python3-venv", why: "the virtual environment pyHanko is installed into" }]),
      ]
    : []),
];
const missing = wanted.filter((item) => !item.ok());
if (missing.length > 0) {
  const packages = missing.flatMap((item) => item.pkg.split(" "));
  const canApt = process.getuid?.() === 0 && existsSync("/etc/debian_version") && has("apt-get");
  if (canApt) {
    log(`installing ${packages.join(", ")} with apt-get (${missing.map((item) => item.why).join("; ")})`);
    // Waits for another apt-get holding the lock instead of failing at once.
    const lock = ["-o", "DPkg::Lock::Timeout=300"];
    run("apt-get", [...lock, "update"]);
    run("apt-get", [...lock, "install", "-y", "--no-install-recommends", ...packages]);
  } else {
    log(`missing system packages: ${packages.join(" ")}`);
    log(`install them with: sudo apt-get install -y --no-install-recommends ${packages.join(" ")}`);
    log("(or set SIGNET_SOFFICE to a LibreOffice soffice binary). Conversion-dependent features fail until then.");
  }
}

// 3. pyHanko for the tests' signature checks: SIGNET_PYHANKO when set (a folder holding the
// pyhanko and pyhanko_certvalidator packages: machines without PyPI), else pinned versions in the
// project's virtual environment .tools/pyhanko (gitignored), installed with pip when missing. The
// pins are the versions the tests' expected verdicts were checked against.
if (forTests) {
  const pins = { pyHanko: "0.20.1", "pyhanko-certvalidator": "0.24.1" };
  const named = process.env.SIGNET_PYHANKO;
  const venv = join(root, ".tools", "pyhanko");
  const python = join(venv, "bin", "python");
  const pipArgs = ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", "--retries", "1", "--timeout", "20"];
  const requirements = Object.entries(pins).map(([name, version]) => `${name}==${version}`);
  const pipLine = `${systemPython} -m venv .tools/pyhanko && .tools/pyhanko/bin/python -m pip install ${requirements.join(" ")}`;
  const versionIn = (folder) => /__version__ = ['"]([^'"]+)/.exec(readFileSync(join(folder, "pyhanko", "version.py"), "utf8"))?.[1];
  if (named) {
    if (existsSync(join(named, "pyhanko", "version.py")) && existsSync(join(named, "pyhanko_certvalidator"))) {
      log(`pyHanko: ${versionIn(named)} from SIGNET_PYHANKO=${named}`);
    } else {
      log(
        `pyHanko: SIGNET_PYHANKO=${named} holds no pyhanko and pyhanko_certvalidator; the signature checks fail until it does (or unset it to install from PyPI)`,
      );
    }
  } else {
    const installed = spawnSync(python, ["-c", "import pyhanko, pyhanko_certvalidator; print(pyhanko.__version__)"], { encoding: "utf8" });
    if (installed.status === 0 && installed.stdout.trim() === pins.pyHanko) {
      log(`pyHanko: ${pins.pyHanko} in .tools/pyhanko`);
    } else {
      log(`installing pyHanko ${pins.pyHanko} and pyhanko-certvalidator ${pins["pyhanko-certvalidator"]} into .tools/pyhanko (venv, pip from PyPI)`);
      const made = existsSync(python) || spawnSync(systemPython, ["-m", "venv", venv], { stdio: "ignore" }).status === 0;
      const pip = made ? spawnSync(python, [...pipArgs, ...requirements], { encoding: "utf8" }) : undefined;
      if (pip?.status !== 0) {
        rmSync(venv, { recursive: true, force: true }); // no half-made environment for the tests to find
        const unreachable = /NewConnectionError|Failed to establish|Name or service not known|timed out|ProxyError/.test(pip?.stderr ?? "");
        const lastLine = pip?.stderr.trim().split("\n").at(-1) ?? "pip failed";
        const reason = !made ? "python3 -m venv failed: python3-venv missing?" : unreachable ? "the package index could not be reached" : lastLine;
        log(`pyHanko: not installed (${reason})`);
        log(`the signature checks fail until you run: ${pipLine}  (or set SIGNET_PYHANKO to a folder holding pyhanko and pyhanko_certvalidator)`);
      }
    }
  }
}

// 4. Tests only: AWS's cfn-lint (Python; the npm package of that name is another project) for
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

// 5. Tests only, on Linux: the Node.js Lambda runtime interface client, aws-lambda-ric (Apache-2.0,
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

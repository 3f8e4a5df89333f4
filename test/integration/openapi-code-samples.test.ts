// The request samples docs/samples/<route>.{sh,mjs,py} (the OpenAPI document's x-codeSamples,
// functions/http/openapi-code-samples.ts) pass bash -n and py_compile, are what /openapi.json
// serves, and run as written: every route's curl, JavaScript fetch and Python requests sample,
// against a fresh local server, from a folder holding the repository's examples/, with
// http://localhost:3000 pointed at the test server. The key comes from SIGNET_KEY as the samples
// say; the verify-code sample gets the real code from the local SES store in place of 123456.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteName } from "#http/routes.ts";
import { latestCode, mailsTo } from "#test/helpers/keys-harness.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfsig, pdfText } from "#test/helpers/pdf-tools.ts";
import { crlIssuer } from "#test/helpers/pki/openssl.ts";

let api: LocalApi;
let key: string;
const folders: string[] = [];

// The order a reader would run them in: sign writes signed.pdf, which verify reads.
// The key samples come last: keys-revoke revokes the key the auth-verify sample minted.
const order: RouteName[] = [
  "info",
  "health",
  "openapi",
  "docs",
  "auth-register",
  "auth-verify",
  "sign",
  "verify",
  "timestamp",
  "verify-key",
  "verify-crl",
  "annotate-fields",
  "annotate",
  "convert",
  "protect",
  "unprotect",
  "stamp",
  "metadata",
  "uploads",
  "job",
  "job-redeliver",
  "webhooks-secret",
  "webhooks-secret-rotate",
  "merge",
  "split",
  "pages",
  "keys-list",
  "keys-revoke-link",
  "keys-revoke",
];

/** pythonWithRequests is the first python3 that imports requests: PATH's, else Debian's (setup installs python3-requests there). */
const pythonWithRequests = ["python3", "/usr/bin/python3"].find((python) => spawnSync(python, ["-c", "import requests"], { stdio: "ignore" }).status === 0);

beforeAll(async () => {
  // Every sample of every route in three languages runs with one key inside a minute or two: more
  // than the per-key limit's default 60 a minute (the limit has tests of its own).
  api = await startLocalApi("samples", { SIGNET_TABLE: "signet-samples", SIGNET_KEY_RATE_LIMIT: "100000" });
  key = await obtainKey(api, "samples");
}, 180_000);

afterAll(async () => {
  await api?.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

// Extra variables the key samples read (KEY_ID, REVOKE_TOKEN, and SIGNET_KEY for revoking).
let sampleEnv: Record<string, string> = {};

const samplesDir = resolve("docs", "samples");
const extensions = { curl: "sh", fetch: "mjs", requests: "py" } as const;
/** sampleFile is a route's sample as the file holds it (the reference page shows it without the final newline). */
const sampleFile = (name: RouteName, label: keyof typeof extensions) => readFileSync(join(samplesDir, `${name}.${extensions[label]}`), "utf8");

function run(command: string, args: string[], cwd: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env: { ...process.env, SIGNET_KEY: key, ...sampleEnv }, timeout: 120_000 }, (error, stdout, stderr) =>
      done({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const runners = {
  curl: (source: string, cwd: string) => run("bash", ["-c", `set -eo pipefail\n${source}`], cwd),
  fetch: (source: string, cwd: string) => {
    writeFileSync(join(cwd, "sample.mjs"), source);
    return run(process.execPath, ["sample.mjs"], cwd);
  },
  requests: (source: string, cwd: string) => {
    writeFileSync(join(cwd, "sample.py"), source);
    return run(pythonWithRequests ?? "python3", ["sample.py"], cwd);
  },
};

/** revokeEnv is what the key samples read: the sample's own key, its id, and the link token from its notice e-mail (it is revoked last). */
async function revokeEnv(email: string, minted: string): Promise<Record<string, string>> {
  const notice = (await mailsTo(api.standIns.sesEndpoint, email)).filter((mail) => mail.subject === "A new Signet API key was created").at(-1);
  const token = /token=(rvk_[0-9A-Za-z]+)/.exec(notice?.body.text ?? "")?.[1];
  expect(token, `a revocation link in the notice to ${email}`).toBeDefined();
  const listed = (await (await fetch(`${api.url}/v1/keys`, { headers: { Authorization: `Bearer ${minted}` } })).json()) as {
    keys: Array<{ id: string; current: boolean }>;
  };
  return { REVOKE_TOKEN: token!, SIGNET_KEY: minted, KEY_ID: listed.keys.find((entry) => entry.current)!.id };
}

/** expectWrittenFiles checks what the samples wrote with independent tools. */
async function expectWrittenFiles(cwd: string): Promise<void> {
  expect((await pdfsig(join(cwd, "signed.pdf"))).map((signature) => signature.text).join("\n")).toMatch(/Signature is Valid/);
  expect(await pdfText(join(cwd, "contract.pdf"))).toContain("Service agreement");
  // protect encrypted contract.pdf (pdftotext without its password fails); unprotect gave it back readable.
  await expect(pdfText(join(cwd, "protected.pdf"))).rejects.toThrow();
  expect(await pdfText(join(cwd, "unprotected.pdf"))).toContain("Service agreement");
  // The CRL sample saved the DER bytes intact: openssl reads it and finds the local root as issuer.
  expect(crlIssuer(join(cwd, "signet-root.crl"))).toMatch(/Signet Local Root CA/);
  expect(await pdfText(join(cwd, "filled.pdf"))).toContain("Ada Lovelace");
  // The job sample fetched the signed PDF from the job's result URL.
  expect((await pdfsig(join(cwd, "signed-by-job.pdf"))).map((signature) => signature.text).join("\n")).toMatch(/Signature is Valid/);
}

describe("docs/samples, the x-codeSamples of /openapi.json", () => {
  it("the run order names every route, and /openapi.json serves each route's three files", async () => {
    expect([...order].sort()).toEqual(routes.map((route) => route.name).sort());
    const document = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; "x-codeSamples"?: Array<{ label: keyof typeof extensions; source: string }> }>>;
    };
    for (const route of routes) {
      const samples = document.paths[route.path]?.[route.method.toLowerCase()]?.["x-codeSamples"] ?? [];
      const labels = samples.map((sample) => sample.label);
      expect(labels, route.name).toEqual(["curl", "fetch", "requests"]);
      for (const sample of samples) expect(`${sample.source}\n`, `${route.name} ${sample.label}`).toBe(sampleFile(route.name, sample.label));
    }
  });

  it("the shell samples pass bash -n and the Python samples py_compile", () => {
    const cache = mkdtempSync(join(tmpdir(), "signet-samples-pycache-"));
    folders.push(cache);
    for (const name of order) {
      const shell = spawnSync("bash", ["-n", join(samplesDir, `${name}.sh`)], { encoding: "utf8" });
      expect(shell.status, `${name}.sh: ${shell.stderr}`).toBe(0);
    }
    // One interpreter for all files; PYTHONPYCACHEPREFIX keeps the compiled files out of docs/samples.
    const python = spawnSync("python3", ["-m", "py_compile", ...order.map((name) => join(samplesDir, `${name}.py`))], {
      encoding: "utf8",
      env: { ...process.env, PYTHONPYCACHEPREFIX: cache },
    });
    expect(python.status, python.stderr).toBe(0);
  });

  it.each(["curl", "fetch", "requests"] as const)(
    "every %s sample runs against the local server",
    async (label) => {
      if (label === "requests") {
        expect(
          pythonWithRequests,
          "no python3 imports requests: apt-get install python3-requests (npm test does as root) or pip install requests",
        ).toBeDefined();
      }
      const cwd = mkdtempSync(join(tmpdir(), `signet-samples-${label}-`));
      folders.push(cwd);
      symlinkSync(resolve("examples"), join(cwd, "examples"));
      const email = `${label}@example.com`;
      let minted = "";
      let jobId = "";

      sampleEnv = {};
      for (const name of order) {
        if (name === "keys-revoke-link") sampleEnv = await revokeEnv(email, minted);
        let source = sampleFile(name, label).replaceAll("http://localhost:3000", api.url).replaceAll("me@example.com", email);
        if (name === "auth-verify") source = source.replaceAll("123456", await latestCode(api.standIns.sesEndpoint, email));
        if (name === "job-redeliver") sampleEnv = { JOB_ID: jobId };
        const result = await runners[label](source, cwd);
        // The job sample in curl keeps the job in job.json; in JavaScript and Python it prints "<id> <status>".
        if (name === "job")
          jobId = existsSync(join(cwd, "job.json")) ? JSON.parse(readFileSync(join(cwd, "job.json"), "utf8")).id : result.stdout.trim().split(/\s+/)[0]!;
        if (name === "job-redeliver") {
          // The job was submitted without a callbackUrl: there is no webhook to send again (404).
          expect(result.status, `${name} (${label}) should fail without a callbackUrl`).not.toBe(0);
          expect(`${result.stdout}${result.stderr}`).toMatch(/\b404\b/);
          sampleEnv = {};
          continue;
        }
        if (name === "timestamp") {
          // This server has no SIGNET_TSA_URL: the sample runs and gets the 422 that names the setting
          // (test/integration/sign-ltv.test.ts renews timestamps against a loopback TSA).
          expect(result.status, `${name} (${label}) should fail without a TSA`).not.toBe(0);
          expect(`${result.stdout}${result.stderr}`).toMatch(/\b422\b/);
          continue;
        }
        expect(result.status, `${name} (${label}) failed:\n${source}\n${result.stderr}\n${result.stdout}`).toBe(0);
        if (name === "auth-verify") minted = /sgn_[A-Za-z0-9]{38}/.exec(result.stdout)?.[0] ?? "";
        if (name === "auth-verify") expect(minted).not.toBe("");
        if (name === "keys-list") expect(result.stdout).toMatch(/key_/);
        if (name === "uploads") expect(result.stdout).toMatch(/upl_/);
        if (name === "split") expect(result.stdout).toMatch(/upl_\S+ pages 1\n/);
        if (name === "keys-revoke-link") expect(result.stdout).toMatch(/confirm/i);
        if (name === "verify") expect(result.stdout).toMatch(/true.*The signature is intact\./i);
      }

      // keys-revoke revoked the minted key.
      expect((await fetch(`${api.url}/v1/keys`, { headers: { Authorization: `Bearer ${minted}` } })).status).toBe(401);

      await expectWrittenFiles(cwd);
    },
    300_000,
  );
});

// The OpenAPI document's x-codeSamples (functions/http/openapi-code-samples.ts) run as written:
// every operation's curl, JavaScript fetch and Python requests sample, against a fresh local
// server, from a folder holding the repository's examples/, with http://localhost:3000 pointed at
// the test server. The key comes from SIGNET_KEY as the samples say; the verify-code sample gets
// the real code from the local SES store in place of 123456.
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestCode, mailsTo } from "#test/helpers/keys-harness.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfsig, pdfText } from "#test/helpers/pdf-tools.ts";
import { crlIssuer } from "#test/helpers/pki/openssl.ts";

let api: LocalApi;
let key: string;
const folders: string[] = [];

// The order a reader would run them in: sign writes signed.pdf, which verify reads.
// The key samples come last: keys-revoke revokes the key the auth-verify sample minted.
const order = [
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
  "uploads",
  "keys-list",
  "keys-revoke-link",
  "keys-revoke",
];

/** pythonWithRequests is the first python3 that imports requests: PATH's, else Debian's (setup installs python3-requests there). */
const pythonWithRequests = ["python3", "/usr/bin/python3"].find((python) => spawnSync(python, ["-c", "import requests"], { stdio: "ignore" }).status === 0);

beforeAll(async () => {
  api = await startLocalApi("samples", { SIGNET_TABLE: "signet-samples" });
  key = await obtainKey(api, "samples");
}, 180_000);

afterAll(async () => {
  await api?.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

// Extra variables the key samples read (KEY_ID, REVOKE_TOKEN, and SIGNET_KEY for revoking).
let sampleEnv: Record<string, string> = {};

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

describe("x-codeSamples in /openapi.json", () => {
  it("the run order names every operation of the document", async () => {
    const document = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; "x-codeSamples"?: unknown[] }>>;
    };
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(operations.length).toBe(order.length);
    for (const operation of operations) expect(operation["x-codeSamples"], operation.operationId).toHaveLength(3);
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
      const document = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { operationId: string; "x-codeSamples": Array<{ label: string; source: string }> }>>;
      };
      const byName = new Map(
        Object.values(document.paths)
          .flatMap((methods) => Object.values(methods))
          .map((operation) => [operation.operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), operation]),
      );
      const cwd = mkdtempSync(join(tmpdir(), `signet-samples-${label}-`));
      folders.push(cwd);
      symlinkSync(resolve("examples"), join(cwd, "examples"));
      const email = `${label}@example.com`;
      let minted = "";

      sampleEnv = {};
      for (const name of order) {
        if (name === "keys-revoke-link") {
          // The sample's own address and key: its notice carries the link, and it is revoked last.
          const notice = (await mailsTo(api.standIns.sesEndpoint, email)).filter((mail) => mail.subject === "A new Signet API key was created").at(-1);
          const token = /token=(rvk_[0-9A-Za-z]+)/.exec(notice?.body.text ?? "")?.[1];
          expect(token, `a revocation link in the notice to ${email}`).toBeDefined();
          const listed = (await (await fetch(`${api.url}/v1/keys`, { headers: { Authorization: `Bearer ${minted}` } })).json()) as {
            keys: Array<{ id: string; current: boolean }>;
          };
          sampleEnv = { REVOKE_TOKEN: token!, SIGNET_KEY: minted, KEY_ID: listed.keys.find((entry) => entry.current)!.id };
        }
        const sample = byName.get(name)?.["x-codeSamples"].find((candidate) => candidate.label === label);
        expect(sample, `${name} has a ${label} sample`).toBeDefined();
        let source = sample!.source.replaceAll("http://localhost:3000", api.url).replaceAll("me@example.com", email);
        if (name === "auth-verify") source = source.replaceAll("123456", await latestCode(api.standIns.sesEndpoint, email));
        const result = await runners[label](source, cwd);
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
        if (name === "keys-revoke-link") expect(result.stdout).toMatch(/confirm/i);
        if (name === "verify") expect(result.stdout).toMatch(/true.*The signature is intact\./i);
      }

      // keys-revoke revoked the minted key.
      expect((await fetch(`${api.url}/v1/keys`, { headers: { Authorization: `Bearer ${minted}` } })).status).toBe(401);

      // What the samples wrote, checked by independent tools.
      expect((await pdfsig(join(cwd, "signed.pdf"))).map((signature) => signature.text).join("\n")).toMatch(/Signature is Valid/);
      expect(await pdfText(join(cwd, "contract.pdf"))).toContain("Service agreement");
      // The CRL sample saved the DER bytes intact: openssl reads it and finds the local root as issuer.
      expect(crlIssuer(join(cwd, "signet-root.crl"))).toMatch(/Signet Local Root CA/);
      expect(await pdfText(join(cwd, "filled.pdf"))).toContain("Ada Lovelace");
    },
    300_000,
  );
});

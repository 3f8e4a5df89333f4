import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfsig, pdfText } from "#test/helpers/pdf-tools.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";

const run = promisify(execFile);

let api: LocalApi;
let outDir: string;

beforeAll(async () => {
  // Config is read at import: startLocalApi sets the environment before it imports the server.
  api = await startLocalApi("examples", { SIGNET_TABLE: "signet-examples" });
  outDir = join(api.dataDir, "out");
}, 180_000);

afterAll(async () => {
  await api?.close();
});

describe("examples/walkthrough.ts against the local server", () => {
  it("walks the whole flow: key by e-mail code, sign PDF and DOCX, annotate to DOCX and PDF, convert, verify", async () => {
    const { runWalkthrough } = await import("../../examples/walkthrough.ts");
    const lines: string[] = [];
    const result = await runWalkthrough({
      baseUrl: api.url,
      sesUrl: api.standIns.sesEndpoint,
      email: "walkthrough@example.com",
      outDir,
      log: (line) => lines.push(line),
    });
    expect(result.stoppedAt, lines.join("\n")).toBeUndefined();
    expect(result.steps).toEqual([
      "health",
      "register",
      "sign a PDF",
      "sign a DOCX",
      "annotate a template to DOCX",
      "annotate a template to PDF",
      "convert a DOCX to PDF",
      "verify a signature",
    ]);

    // The outputs themselves, checked by independent tools.
    const original = readFileSync("examples/files/contract.pdf");
    const signed = readFileSync(result.files["signed-contract.pdf"]!);
    expect(signed.subarray(0, original.length).equals(original), "incremental update keeps the input").toBe(true);
    const signatures = await pdfsig(result.files["signed-contract.pdf"]!);
    expect(signatures.map((signature) => signature.text).join("\n")).toMatch(/Signature Validation: Signature is Valid/);
    // pdfsig valid, ETSI.CAdES.detached, total document signed; qpdf --check clean; the input a prefix.
    await expectSignedPdf(result.files["signed-contract.pdf"]!, { input: original });
    expect(readFileSync(result.files["signed-contract-docx.pdf"]!).subarray(0, 5).toString()).toBe("%PDF-");
    // A DOCX input: the PDF LibreOffice made from it is the signed prefix, not known here.
    await expectSignedPdf(result.files["signed-contract-docx.pdf"]!);

    const filledDocx = readFileSync(result.files["filled-template.docx"]!);
    expect(filledDocx.subarray(0, 2).toString()).toBe("PK");
    const filledText = await pdfText(result.files["filled-template.pdf"]!);
    expect(filledText).toContain("Ada Lovelace");
    expect(filledText).toContain("Analytical Engines Ltd");
    expect(filledText).toContain("Difference engine");
    expect(filledText).toContain("C-42");

    const convertedText = await pdfText(result.files["converted-contract.pdf"]!);
    expect(convertedText).toContain("Service agreement");
  }, 180_000);

  it("examples/walkthrough.sh (curl + jq) walks the same flow, finding the server by npm start's PORT and SIGNET_SES_PORT", async () => {
    const shellOut = join(api.dataDir, "shell-out");
    const { SIGNET_URL: _url, SIGNET_SES_URL: _ses, ...env } = process.env;
    const { stdout } = await run("bash", ["examples/walkthrough.sh"], {
      env: {
        ...env,
        PORT: new URL(api.url).port,
        SIGNET_SES_PORT: new URL(api.standIns.sesEndpoint).port,
        SIGNET_EMAIL: "shell@example.com",
        SIGNET_OUT: shellOut,
        SIGNET_KEY_FILE: join(api.dataDir, "example-key"),
      },
      timeout: 120_000,
    });
    expect(stdout).toContain("valid: true");
    expect(stdout.trim().endsWith("Done.")).toBe(true);
    expect(stdout).toContain(`kept it in ${join(api.dataDir, "example-key")}`);
    expect(readFileSync(join(api.dataDir, "example-key"), "utf8")).toMatch(/^sgn_[0-9A-Za-z]{38}\n$/);
    for (const name of ["signed-contract.pdf", "signed-contract-docx.pdf", "filled-template.pdf", "converted-contract.pdf"]) {
      expect(readFileSync(join(shellOut, name)).subarray(0, 5).toString(), name).toBe("%PDF-");
    }
    expect(readFileSync(join(shellOut, "filled-template.docx")).subarray(0, 2).toString()).toBe("PK");
    await expectSignedPdf(join(shellOut, "signed-contract.pdf"), { input: "examples/files/contract.pdf" });
    await expectSignedPdf(join(shellOut, "signed-contract-docx.pdf"));
  }, 180_000);

  it.each([
    ["walkthrough.sh", "bash", ["examples/walkthrough.sh"]],
    ["walkthrough.ts", process.execPath, ["--import", "tsx", "examples/walkthrough.ts"]],
  ])("%s against no server says so in one line and exits 1", async (_name, command, args) => {
    const closed = await import("node:net").then(({ createServer }) => {
      const probe = createServer();
      return new Promise<number>((resolve) =>
        probe.listen(0, "127.0.0.1", () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        }),
      );
    });
    const { SIGNET_URL: _url, ...env } = process.env;
    const failure = await run(command, args, { env: { ...env, PORT: String(closed), SIGNET_OUT: join(outDir, "none") } }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(
      failure?.stderr
        .trim()
        .split("\n")
        .filter((line) => !line.startsWith("npm warn")),
    ).toEqual([`no Signet at http://localhost:${closed}: run npm start (or set SIGNET_URL, or PORT as npm start got it)`]);
  });

  it("stops with a clear message at an endpoint that answers 501", async () => {
    const { runWalkthrough } = await import("../../examples/walkthrough.ts");
    const lines: string[] = [];
    // A stand-in API that is healthy but offers nothing else yet.
    const http = await import("node:http");
    const stub = http.createServer((request, response) => {
      const healthy = request.url === "/v1/health";
      response.writeHead(healthy ? 200 : 501, { "content-type": "application/json" });
      response.end(
        JSON.stringify(
          healthy
            ? { status: "healthy", timestamp: new Date().toISOString(), version: "0" }
            : { code: "NOT_IMPLEMENTED", error: "Not Implemented", message: "not yet", requestId: "x" },
        ),
      );
    });
    await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
    try {
      const port = (stub.address() as { port: number }).port;
      const result = await runWalkthrough({ baseUrl: `http://127.0.0.1:${port}`, email: "stub@example.com", outDir, log: (line) => lines.push(line) });
      expect(result.steps).toEqual(["health"]);
      expect(result.stoppedAt).toBe("GET /v1/auth/register");
      expect(lines.join("\n")).toContain("GET /v1/auth/register is not available on this server yet (501 NOT_IMPLEMENTED); stopping here.");
    } finally {
      stub.close();
    }
  });
});

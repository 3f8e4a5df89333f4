// npm run bench:sign — the time a key in KMS adds per signature (through the KMS stand-in; alone:
// npm run bench:sign -- --kms), the extra time per PAdES level (B-B/B-T/B-LT/B-LTA; alone: npm run bench:sign -- --levels), and Signet's PAdES signing (with the audit certificate page) against a naive
// pdf-lib + @signpdf pipeline, on a 100-page 10 MB PDF and a 1-page PDF, warm and in-process.
// Memory is measured in a child process per case: peak RSS (getrusage high-water) minus the
// RSS of the same process, warmed up and collected, before it reads the input (so the input
// buffer itself counts against the budget).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { drawAuditCertificate, type AuditCertificate } from "#domain/certificate-page/audit-certificate.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import type { FontFiles } from "#domain/pdf-text/fonts.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { createKmsKey, createKmsSigner, kmsClientFor, kmsSignerDefaults } from "#adapters/kms-signer.ts";
import { startKmsStandIn } from "#local/kms-stand-in.ts";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import { addLongTermValidation } from "#domain/signing/ltv.ts";
import { startLoopbackPki } from "#test/helpers/pki/loopback-ltv-pki.ts";
import { benchPdfFile, makeBenchPdf, naivePipeline, type Pipeline } from "./naive-stack.ts";
import { loadConfig } from "#config";

/** fetchSettings are the default fetch settings (the settings table's), which each fetcher here adjusts. */
const fetchSettings = loadConfig({}).fetch;

const FIXTURES = join(process.cwd(), "test-output", "bench-sign");
const RUNS = 30;
const WARMUP = 5;

async function fixture(name: string, pages: number, noise: number): Promise<Buffer> {
  return readFileSync(await benchPdfFile(FIXTURES, name, pages, noise));
}

function fonts(): FontFiles {
  const dir = join(process.cwd(), "assets", "fonts");
  return {
    regular: readFileSync(join(dir, "DejaVuSans.ttf")),
    bold: readFileSync(join(dir, "DejaVuSans-Bold.ttf")),
    mono: readFileSync(join(dir, "DejaVuSansMono.ttf")),
    cjk: readFileSync(join(dir, "DroidSansFallback.ttf")),
  };
}

function certificate(identity: SigningIdentity, pages: number): AuditCertificate {
  return {
    documentName: "contract.pdf",
    documentSha256: "3".repeat(64),
    documentPages: pages,
    eventId: "evt_bench",
    signer: {
      name: "Ada Lovelace",
      email: "ada@example.com",
      ip: "203.0.113.7",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
    },
    events: [
      { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
      { type: "scroll", timestamp: "2026-11-22T09:56:00Z", data: { percent: 100 } },
      { type: "field_change", timestamp: "2026-11-22T09:57:00Z", data: { field: "name", value: "Ada Lovelace" } },
      { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
    ],
    signingTime: new Date(),
    service: { subject: identity.certificate.subject, fingerprint: identity.certificate.fingerprint256, algorithm: "RSA-3072 with SHA-256" },
    metadata: { contract: "C-42" },
  };
}

async function signetPipeline(): Promise<Pipeline> {
  const identity = await generateIdentity();
  const files = fonts();
  return async (input) => {
    const signed = await signPdf(input, {
      identity,
      signingTime: new Date(),
      signerName: "Ada Lovelace",
      reason: "Signed by Ada Lovelace <ada@example.com>",
      contactInfo: "ada@example.com",
      decorate: (pdf) => drawAuditCertificate(pdf, certificate(identity, pdf.getPageCount()), files),
    });
    return signed;
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function time(pipeline: Pipeline, input: Buffer): Promise<{ median: number; p95: number }> {
  for (let index = 0; index < WARMUP; index++) await pipeline(input);
  const times: number[] = [];
  for (let index = 0; index < RUNS; index++) {
    const start = performance.now();
    await pipeline(input);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95) };
}

/** memoryChild runs in a fresh process: warm up on a 1-page file, collect, then read and sign the input once. */
async function memoryChild(which: string, file: string): Promise<void> {
  const pipeline = which === "signet" ? await signetPipeline() : await naivePipeline();
  const small = await makeBenchPdf(1, 0);
  await pipeline(small);
  await pipeline(small);
  (globalThis as { gc?: () => void }).gc?.();
  const idle = process.memoryUsage.rss();
  const output = await pipeline(readFileSync(file));
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ idle, peak, above: peak - idle, output: output.length }));
}

function peakAboveIdle(which: string, file: string): number {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", "bench/sign.ts", "--memory", which, file], {
    encoding: "utf8",
    maxBuffer: 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`memory child failed: ${child.stderr}`);
  return (JSON.parse(child.stdout) as { above: number }).above;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

const LEVEL_RUNS = 15;

/**
 * levels prints the time each PAdES level adds over B-B, against a loopback PKI: an
 * openssl TSA, CRL and OCSP responder on 127.0.0.1 (each TSA or OCSP answer is one openssl
 * process, some 10-30 ms here; a real TSA adds its network round trip instead).
 */
async function levels(inputs: Array<[string, Buffer]>): Promise<void> {
  const pki = await startLoopbackPki();
  try {
    const fetcher = createSafeFetcher({ ...fetchSettings, allowHttp: true, allowAddresses: ["127.0.0.1"] });
    const timestamper = createHttpTimestamper(pki.tsaUrl);
    console.log(
      `PAdES levels: ${LEVEL_RUNS} warm runs each, ECDSA P-256 signer with a CRL distribution point, no certificate page; loopback openssl TSA and CRL.`,
    );
    for (const [label, input] of inputs) {
      const base = { identity: pki.identity(), signingTime: new Date(), signerName: "Ada Lovelace", reason: "Signed" };
      const pipelines: Array<[string, Pipeline]> = [
        ["B-B", (bytes) => signPdf(bytes, base)],
        ["B-T", (bytes) => signPdf(bytes, { ...base, timestamper })],
        ["B-LT", async (bytes) => addLongTermValidation(await signPdf(bytes, { ...base, timestamper }), { fetcher })],
        ["B-LTA", async (bytes) => addLongTermValidation(await signPdf(bytes, { ...base, timestamper }), { fetcher, timestamper })],
      ];
      const medians: number[] = [];
      const rows: string[] = [];
      for (const [level, pipeline] of pipelines) {
        for (let index = 0; index < 3; index++) await pipeline(input);
        const times: number[] = [];
        for (let index = 0; index < LEVEL_RUNS; index++) {
          const start = performance.now();
          await pipeline(input);
          times.push(performance.now() - start);
        }
        times.sort((a, b) => a - b);
        const median = percentile(times, 50);
        medians.push(median);
        rows.push(
          `  ${level.padEnd(5)} median ${ms(median).padStart(9)}, p95 ${ms(percentile(times, 95)).padStart(9)}, extra over B-B ${ms(median - medians[0]!).padStart(9)}, over the level below ${ms(median - (medians.at(-2) ?? median)).padStart(9)}`,
        );
      }
      console.log(`${label}\n${rows.join("\n")}`);
    }
    console.log(`  (requests served: ${pki.served.tsa} TSA, ${pki.served.crl} CRL)\n`);
  } finally {
    await pki.close();
  }
}

const KMS_RUNS = 50;

/**
 * kms prints what a key in KMS adds per signature: the same RSA-3072 CMS signature on a
 * 1-page document with the key in this process, and through the KMS adapter, the real AWS SDK
 * client and the stand-in on loopback (HTTP, JSON, SigV4 signing of the request, the stand-in's
 * own RSA operation). On AWS the stand-in's part becomes a TLS round trip to KMS in the region
 * plus KMS's signing: not measured here (no AWS access).
 */
async function kms(one: Buffer): Promise<void> {
  const standIn = await startKmsStandIn();
  try {
    const client = kmsClientFor({ region: "us-east-1", endpoint: standIn.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    const local = await generateIdentity();
    const signer = await createKmsSigner({ keyId: await createKmsKey(client, "RSA_3072", "bench"), client, ...kmsSignerDefaults });
    // The certificate does not matter for timing: the CMS has the same shape with the KMS key's signature.
    const inKms: SigningIdentity = { ...local, signer };
    const base = { signingTime: new Date(), signerName: "Ada Lovelace", reason: "Signed" };
    const rows: Array<[string, { median: number; p95: number }]> = [];
    for (const [label, pipeline] of [
      ["key file, sign() alone", () => local.signer.sign(Buffer.alloc(200, 1))],
      ["KMS stand-in, sign() alone", () => signer.sign(Buffer.alloc(200, 1))],
      ["key file, 1-page B-B", () => signPdf(one, { ...base, identity: local })],
      ["KMS stand-in, 1-page B-B", () => signPdf(one, { ...base, identity: inKms })],
    ] as Array<[string, () => Promise<unknown>]>) {
      for (let index = 0; index < 5; index++) await pipeline();
      const times: number[] = [];
      for (let index = 0; index < KMS_RUNS; index++) {
        const start = performance.now();
        await pipeline();
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      rows.push([label, { median: percentile(times, 50), p95: percentile(times, 95) }]);
    }
    console.log(`Signing key in AWS KMS (stand-in on loopback, real SDK client), RSA-3072, ${KMS_RUNS} warm runs each, no certificate page:`);
    for (const [label, { median, p95 }] of rows) console.log(`  ${label.padEnd(28)} median ${ms(median).padStart(9)}, p95 ${ms(p95).padStart(9)}`);
    const added = rows[3]![1].median - rows[2]![1].median;
    console.log(`  added per signature through the stand-in: ${ms(added)} (median; ${standIn.signCalls()} Sign requests served)`);
    console.log(
      "  On AWS expect one HTTPS round trip to KMS in the function's region plus KMS's own signing instead of the stand-in's part, and the first signature of a container also pays GetPublicKey; measure it there (the sign function's duration, or CloudTrail's Sign events).\n",
    );
    client.destroy();
  } finally {
    await standIn.close();
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === "--memory") return memoryChild(process.argv[3]!, process.argv[4]!);
  if (process.argv[2] === "--kms") return kms(await fixture("1-page.pdf", 1, 0));
  if (process.argv[2] === "--levels") {
    return levels([
      ["1 page", await fixture("1-page.pdf", 1, 0)],
      ["100 pages, 10 MB", await fixture("100-pages-10mb.pdf", 100, 100_000)],
    ]);
  }
  const big = await fixture("100-pages-10mb.pdf", 100, 100_000);
  const one = await fixture("1-page.pdf", 1, 0);
  const signet = await signetPipeline();
  const naive = await naivePipeline();
  console.log(`Signing benchmark: Node ${process.version}, ${RUNS} warm runs after ${WARMUP} warm-up runs, RSA-3072, certificate page included.`);
  console.log(`Inputs: ${mb(big.length)} / 100 pages, ${(one.length / 1024).toFixed(1)} KB / 1 page.\n`);
  for (const [label, input, file, target] of [
    ["100 pages, 10 MB", big, join(FIXTURES, "100-pages-10mb.pdf"), 60],
    ["1 page", one, join(FIXTURES, "1-page.pdf"), 15],
  ] as const) {
    const ours = await time(signet, input);
    const theirs = await time(naive, input);
    const ourMemory = peakAboveIdle("signet", file);
    const theirMemory = peakAboveIdle("naive", file);
    const ratio = (bytes: number) => (input.length > 1024 * 1024 ? ` (${(bytes / input.length).toFixed(2)}x input; target <= 2.5x)` : "");
    console.log(`${label}`);
    console.log(
      `  Signet (libpdf incremental + own CAdES): median ${ms(ours.median)}, p95 ${ms(ours.p95)}, peak RSS above idle ${mb(ourMemory)}${ratio(ourMemory)}   target: median <= ${target} ms`,
    );
    console.log(
      `  naive (pdf-lib re-save + @signpdf P12):  median ${ms(theirs.median)}, p95 ${ms(theirs.p95)}, peak RSS above idle ${mb(theirMemory)}${ratio(theirMemory)}`,
    );
    console.log(`  ratio naive/Signet: time ${(theirs.median / ours.median).toFixed(1)}x, memory ${(theirMemory / Math.max(1, ourMemory)).toFixed(1)}x\n`);
  }
  await levels([
    ["1 page", one],
    ["100 pages, 10 MB", big],
  ]);
  await kms(one);
}

await main();

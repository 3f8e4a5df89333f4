// npx tsx bench/verify-signatures.ts. Starts the local server, signs a one-page contract three times
// through /v1/sign (three signatures, each an incremental update), then sends /v1/verify of that
// file 30 times and prints the median and the quartiles of the wall time a request takes.
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";
import { contractPdf } from "#test/helpers/pdf-attacks/revisions.ts";

process.env.SIGNET_LOG_LEVEL ??= "WARN";
const api = await startLocalApi("bench-verify-signatures");
const key = await obtainKey(api, "bench-verify-signatures");

async function post(path: string, body: unknown, auth?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

let pdf = await contractPdf();
for (const name of ["First Signer", "Second Signer", "Third Signer"]) {
  const signed = await post(
    "/v1/sign",
    {
      document: { base64: pdf.toString("base64") },
      signer: { name, email: "bench@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
    },
    key,
  );
  pdf = Buffer.from((signed.document as { base64: string }).base64, "base64");
}
const body = { document: { base64: pdf.toString("base64") } };
const first = await post("/v1/verify", body);
if (first.valid !== true || (first.signatures as unknown[]).length !== 3) throw new Error(`unexpected answer ${JSON.stringify(first).slice(0, 300)}`);
const times: number[] = [];
for (let round = 0; round < 30; round++) {
  const started = performance.now();
  await post("/v1/verify", body);
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.floor(q * (times.length - 1))]!.toFixed(1);
console.log(`/v1/verify of a 3-signature PDF (${pdf.length} bytes), 30 requests: median ${at(0.5)} ms (quartiles ${at(0.25)}-${at(0.75)} ms)`);
await api.close();
process.exit(0);

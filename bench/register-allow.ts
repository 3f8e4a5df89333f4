// npm run bench:register — register's time for an address on the allow-list against one outside
// it: through the real local server and its stand-ins (dynalite, the local SES), the
// two kinds interleaved, medians and 90th percentiles. Equal steps are what the test checks
// (test/integration/keys-limits.test.ts); this shows what they cost and that the times match.
import { startLocalApi } from "#test/helpers/local-api.ts";

const RUNS = Number(process.env.RUNS ?? 100);
const WARMUP = 10;

const api = await startLocalApi("bench-register", {
  SIGNET_TABLE: "signet-bench-register",
  SIGNET_LOG_LEVEL: "ERROR",
  // Above the runs (the sliding-window plan walks every slot of the rule: keep it near the need).
  SIGNET_REGISTER_IP_LIMIT: "1000",
  SIGNET_REGISTER_ALLOW: "@listed.example",
  SIGNET_CONVERSION_MODE: "oneshot",
});

async function register(domain: string, i: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${api.url}/v1/auth/register?email=${encodeURIComponent(`user${i}-${Date.now()}@${domain}`)}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`register answered ${response.status}`);
  return performance.now() - started;
}

const times: Record<string, number[]> = { "on the list": [], "outside it": [] };
for (let i = 0; i < RUNS + WARMUP; i++) {
  // Alternate which goes first, so neither always follows the other.
  const pair = i % 2 === 0 ? (["on the list", "outside it"] as const) : (["outside it", "on the list"] as const);
  for (const kind of pair) {
    const ms = await register(kind === "on the list" ? "listed.example" : "other.example", i);
    if (i >= WARMUP) times[kind]!.push(ms);
  }
}
const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
for (const [kind, list] of Object.entries(times)) {
  const sorted = [...list].sort((a, b) => a - b);
  console.log(`${kind.padEnd(12)} median ${at(sorted, 0.5).toFixed(2)} ms   p90 ${at(sorted, 0.9).toFixed(2)} ms   (${sorted.length} runs)`);
}
await api.close();
process.exit(0);

// npx tsx bench/jobs-round-trips.ts — where a job's time goes, counted rather than timed (the
// count does not move with the machine's load): the key-table calls (by command) and the S3
// stand-in calls the local server makes for N 1-page sign jobs, submitted one at a time and read
// once when finished, per job; plus the calls of the idle pool during one second.
import { S3Client } from "@aws-sdk/client-s3";
import { makePdf } from "#test/helpers/pdf-builder.ts";

const JOBS = Number(process.env.JOBS ?? 20);

const counts = new Map<string, number>();
// Every AWS SDK v3 client (DynamoDB, its document client, S3) sends through the one smithy Client.send:
// each call is counted by its client's and its command's names (a bench-only probe).
const smithyClient = Object.getPrototypeOf(S3Client.prototype) as { send: (...args: unknown[]) => unknown };
const send = smithyClient.send;
smithyClient.send = function (this: object, ...args: unknown[]) {
  const client = this.constructor.name.replace(/Client$/, "");
  const name = `${client}:${(args[0] as object).constructor.name.replace(/Command$/, "")}`;
  counts.set(name, (counts.get(name) ?? 0) + 1);
  return (send as (...all: unknown[]) => unknown).apply(this, args);
} as typeof send;

const snapshot = () => new Map(counts);
const since = (before: Map<string, number>) =>
  [...counts].map(([name, total]) => [name, total - (before.get(name) ?? 0)] as const).filter(([, count]) => count > 0);

const { obtainKey, startLocalApi } = await import("#test/helpers/local-api.ts");
const { submitJob, waitForJob } = await import("#test/helpers/jobs.ts");
const api = await startLocalApi("bench-round-trips", {
  SIGNET_TABLE: "signet-bench-round-trips",
  SIGNET_CONVERSION_MODE: "oneshot",
  SIGNET_LOG_LEVEL: "WARN",
  SIGNET_KEY_RATE_LIMIT: "100000000",
  SIGNET_AUTHORIZER_CACHE_SECONDS: "60",
});
try {
  const key = await obtainKey(api, "round-trips");
  const input = await makePdf(1);
  const body = (n: number) => ({
    document: { base64: input.toString("base64") },
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
    eventId: `evt_rt_${n}`,
  });
  // One job first: the authorizer's cache and the first-use reads are not counted.
  await waitForJob(api, (await submitJob(api, "/v1/sign", body(0), key)).json.id as string, key);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const idle = snapshot();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const idleCalls = since(idle);
  const before = snapshot();
  for (let n = 1; n <= JOBS; n++) {
    const submitted = await submitJob(api, "/v1/sign", body(n), key);
    // Read once it is done: the polls in between belong to the client, not to the job.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const job = await waitForJob(api, submitted.json.id as string, key, () => true);
      if (job.status === "succeeded") break;
      if (job.status !== "queued" && job.status !== "running") throw new Error(`job ${job.status}`);
    }
  }
  const perJob = since(before).map(([name, count]) => `${name} ${(count / JOBS).toFixed(2)}`);
  console.log(`bench:jobs round trips  ${new Date().toISOString()}  ${JOBS} sign jobs one at a time, each read after 200 ms (poll 50 ms)`);
  console.log(`per job (submit, run, reads, the pool's polls meanwhile): ${perJob.join(", ")}`);
  console.log(`idle pool, 1 s: ${idleCalls.map(([name, count]) => `${name} ${count}`).join(", ") || "none"}`);
} finally {
  await api.close();
}

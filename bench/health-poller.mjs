// Polls GET <url>/v1/health one request after another from its own process (so a blocked server
// loop cannot also stop the clock) and reports the latencies of each phase to its parent over IPC.
const url = process.argv[2];
let phase = "idle";
const samples = new Map();
let stopping = false;
process.on("message", (message) => {
  if (message.phase) phase = message.phase;
  if (message.done) stopping = true;
});
while (!stopping) {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/v1/health`);
    await response.arrayBuffer();
  } catch {
    // A refused poll counts with its time like any other.
  }
  const list = samples.get(phase) ?? [];
  list.push(performance.now() - started);
  samples.set(phase, list);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
process.send(Object.fromEntries(samples), () => process.exit(0));

// The local server of bench/http.ts (`--server`) in a process of its own, as bench:http and
// bench:pdf-tools measure it: its URL, an API key, its pid for /proc readings.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export interface ServerHandle {
  url: string;
  key: string;
  pid: number;
  child: ChildProcess;
}

/**
 * startServer runs bench/http.ts --server as `npm start` runs the server (--expose-gc and glibc's
 * fixed mmap threshold: local/server.ts, collectAfterLarge), with extra Node flags and environment.
 */
export function startServer(nodeArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServerHandle> {
  const child = spawn(process.execPath, ["--expose-gc", ...nodeArgs, "--import", "tsx", "bench/http.ts", "--server"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { MALLOC_MMAP_THRESHOLD_: "131072", ...env, ...process.env },
  });
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (text: string) => {
      buffered += text;
      const line = buffered.split("\n").find((candidate) => candidate.startsWith('{"url"'));
      if (line) resolve({ ...(JSON.parse(line) as { url: string; key: string; pid: number }), child });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** cpuMs is the CPU time (user + system) a process has used, in ms (/proc/<pid>/stat, 100 ticks a second). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

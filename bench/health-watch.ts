// The health poller the benches that ask "does /v1/health keep answering while X runs?" share
// (docx-bomb, office-input, verify): a child process polls health and files each latency under the
// phase it was told, so a busy server's event loop does not delay the measuring itself.
import { fork } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";

/** HealthWatch files health latencies under named phases; done() ends polling and gives them. */
export interface HealthWatch {
  phase(name: string): void;
  done(): Promise<Record<string, number[]>>;
}

/** watchHealth starts polling `${url}/v1/health` in a child process (bench/health-poller.mjs). */
export function watchHealth(url: string): HealthWatch {
  const poller = fork(new URL("./health-poller.mjs", import.meta.url), [url], { stdio: "inherit" });
  const results = new Promise<Record<string, number[]>>((resolve) => poller.once("message", (message) => resolve(message as Record<string, number[]>)));
  return {
    phase: (name) => poller.send({ phase: name }),
    done: () => {
      poller.send({ done: true });
      return results;
    },
  };
}

/** median is the middle value (the upper one of two), NaN for none. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** machineLine says how loaded the machine was, which health latency depends on. */
export const machineLine = (): string =>
  `load average ${loadavg()
    .map((n) => n.toFixed(1))
    .join(" ")} on ${availableParallelism()} cores (health latency grows with the machine's load)`;

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { groupGone, killGroup } from "#adapters/libreoffice/process-group.ts";

// A parent that never reaps: its child leads a process group of its own, exits, and stays a zombie.
const parent = spawn(
  "python3",
  ["-c", "import os, sys, time\npid = os.fork()\nif pid == 0:\n    os.setpgid(0, 0)\n    os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)"],
  { detached: true, stdio: ["ignore", "pipe", "inherit"] },
);

afterAll(() => killGroup(parent.pid));

const state = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
};

describe("groupGone", () => {
  it("counts a group whose processes have all exited (zombies not yet reaped) as gone", async () => {
    const zombie = await new Promise<number>((resolve) => parent.stdout!.once("data", (line: Buffer) => resolve(Number(String(line).trim()))));
    while (state(zombie) !== "Z") await new Promise((resolve) => setTimeout(resolve, 10));
    expect(() => process.kill(-zombie, 0)).not.toThrow(); // the kernel still lists the group
    // Would wait the full minute (and the test time out) if a zombie counted as running.
    await groupGone(zombie, 60_000);
  });

  it("stops waiting after maxWaitMs while a process of the group still runs", async () => {
    const started = performance.now();
    await groupGone(parent.pid, 300);
    // It waited (a lower bound, which no load can break; Date.now's millisecond steps aside) and the process it waited on still runs.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(() => process.kill(parent.pid!, 0)).not.toThrow();
  });

  // The wait is long and ends only by the kill: with a 300 ms wait and a 100 ms look (as here
  // before), a loaded machine ran both timers in one turn and saw the wait over (1 of 2 runs).
  it("waits while a process of the group runs, and resolves once it is killed", async () => {
    let settled = false;
    const waiting = groupGone(parent.pid, 600_000).then(() => (settled = true));
    // Still waiting after it has looked at the group several times (it looks every 20 ms).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    expect(() => process.kill(parent.pid!, 0), "the process still runs").not.toThrow();
    killGroup(parent.pid);
    await waiting; // without the kill seen, the test time-out (60 s) ends it first
    expect(settled).toBe(true);
  });
});

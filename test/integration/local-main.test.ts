import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** launch starts a command in its own process group (as a terminal would) and waits for the banner. */
async function launch(command: string, args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "signet-main-"));
  dataDirs.push(dataDir);
  const child = spawn(command, args, {
    env: { ...process.env, PORT: "0", SIGNET_SES_PORT: "0", SIGNET_S3_PORT: "0", SIGNET_DATA_DIR: dataDir, SIGNET_LOG_LEVEL: "WARN" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 90 s:\n${output}`)), 90_000);
    child.stdout!.on("data", () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, url, output: () => output };
}

async function expectHealthy(url: string): Promise<void> {
  const health = await fetch(`${url}/v1/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ status: "healthy", checks: { libreoffice: { status: "up" } } });
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));

/**
 * livingMembers lists the processes of a process group that still run. A zombie is dead: it only
 * waits for its parent to read its exit status, and once the server has exited that parent is
 * PID 1, which on some machines (containers without an init) never does.
 */
function livingMembers(group: number): string[] {
  return execFileSync("ps", ["-e", "-o", "pgid=,pid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([pgid, , stat]) => Number(pgid) === group && stat !== undefined && !stat.startsWith("Z"))
    .map((fields) => fields.slice(1).join(" "));
}

async function expectGroupGone(pid: number): Promise<void> {
  // Nothing of the group survives: the server, the stand-ins, a warm LibreOffice.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(livingMembers(pid)).toEqual([]);
}

describe("the local server's start and stop", () => {
  it("npm start runs the setup, serves the API with its stand-ins, and stops cleanly on Ctrl+C", async () => {
    // Exactly the README's command: prestart (scripts/setup.mjs, a no-op here) then local/main.ts.
    const { child, url, output } = await launch("npm", ["start"]);
    expect(output()).toMatch(/mail \(browser\): http:\/\/127\.0\.0\.1:\d+/);
    // The S3 stand-in for uploads, on its own port, objects in the data folder.
    expect(output()).toMatch(/S3 \(uploads\): +http:\/\/127\.0\.0\.1:\d+ .*SIGNET_S3_PORT.*\/s3\)/);
    await expectHealthy(url);
    const exit = exited(child);
    process.kill(-child.pid!, "SIGINT"); // what Ctrl+C sends: the whole foreground group
    // npm re-raises the signal its script ended on, after the server's clean-up.
    expect(await exit).toEqual({ code: null, signal: "SIGINT" });
    expect(output()).toContain("SIGINT: finishing requests under way");
    expect(output()).not.toMatch(/ERR|Error/);
    await expectGroupGone(child.pid!);
  }, 120_000);

  it("local/main.ts stops with exit code 0 on SIGTERM (a process manager)", async () => {
    const { child, url, output } = await launch(process.execPath, ["--import", "tsx", "local/main.ts"]);
    await expectHealthy(url);
    const exit = exited(child);
    child.kill("SIGTERM");
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(output()).toContain("SIGTERM: finishing requests under way");
    await expectGroupGone(child.pid!);
  }, 120_000);
});

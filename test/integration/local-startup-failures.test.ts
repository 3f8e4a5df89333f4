// Start-up failures of the local server (the real entry, local/main.ts, run with tsx): each is one
// line on stderr naming the cause and the variable to change, and a non-zero exit code.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startStandIns } from "#local/stand-ins.ts";

const folders: string[] = [];
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "signet-startup-"));
  folders.push(dir);
  return dir;
}

/** busyPort holds a free loopback port, as another program would. */
async function busyPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** start runs local/main.ts with env on top of ports 0 and a fresh data folder, to its exit. */
function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", "local/main.ts"],
      { env: { ...process.env, PORT: "0", SIGNET_SES_PORT: "0", SIGNET_DATA_DIR: dataDir(), SIGNET_LOG_LEVEL: "WARN", ...env }, timeout: 90_000 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/** expectOneLine asserts the exit code 1 and exactly one stderr line matching the pattern. */
function expectOneLine(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.split("\n").filter((line) => line.trim() && !line.startsWith("npm warn"));
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stdout).not.toContain("listening on");
}

describe("local/main.ts start-up failures", () => {
  it("a busy API port names the port and PORT", async () => {
    const port = await busyPort();
    expectOneLine(
      await start({ PORT: String(port) }),
      new RegExp(`^Signet cannot start: the API port ${port} on 127\\.0\\.0\\.1 is already in use .*set PORT to a free port$`),
    );
  });

  it("a busy mail port names the port and SIGNET_SES_PORT", async () => {
    const port = await busyPort();
    expectOneLine(
      await start({ SIGNET_SES_PORT: String(port) }),
      new RegExp(
        `^Signet cannot start: the mail stand-in \\(local SES\\) port ${port} on 127\\.0\\.0\\.1 is already in use .*set SIGNET_SES_PORT to a free port$`,
      ),
    );
  });

  it("a data folder a running server claimed names the folder, the pid and SIGNET_DATA_DIR", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, "server.pid"), `${process.pid}\n`); // a live process holds it
    expectOneLine(
      await start({ SIGNET_DATA_DIR: dir }),
      new RegExp(
        `^Signet cannot start: the data folder ${dir} is in use by another Signet server \\(pid ${process.pid}\\): .*set SIGNET_DATA_DIR to another folder$`,
      ),
    );
  });

  it("a data folder whose database another process has open (no pid file) names SIGNET_DATA_DIR", async () => {
    const dir = dataDir();
    const standIns = await startStandIns({ dataDir: dir, sesPort: 0 }); // dynalite of this process holds the folder's database
    try {
      expectOneLine(
        await start({ SIGNET_DATA_DIR: dir }),
        new RegExp(`^Signet cannot start: the data folder ${dir} is in use by another process .*set SIGNET_DATA_DIR to another folder$`),
      );
    } finally {
      await standIns.close();
    }
  });

  it("LibreOffice missing names SIGNET_SOFFICE", async () => {
    expectOneLine(
      await start({ SIGNET_SOFFICE: "/nonexistent/soffice" }),
      /^Signet cannot start: LibreOffice is not at SIGNET_SOFFICE=\/nonexistent\/soffice .*fix SIGNET_SOFFICE/,
    );
    // (Without SIGNET_SOFFICE the search also looks in /usr/lib/libreoffice, where this machine has it.)
  });

  it("a port that is not a number names the variable", async () => {
    expectOneLine(await start({ PORT: "eighty" }), /^Signet cannot start: PORT must be a port number from 0 to 65535, got "eighty"$/);
  });
});

describe("startStandIns", () => {
  it("a busy SES port is a StartupError naming SIGNET_SES_PORT, not a TypeError", async () => {
    const port = await busyPort();
    await expect(startStandIns({ sesPort: port })).rejects.toThrow(/port \d+ on 127\.0\.0\.1 is already in use.*SIGNET_SES_PORT/);
  });
});

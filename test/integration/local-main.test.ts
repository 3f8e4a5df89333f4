import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dataDir = mkdtempSync(join(tmpdir(), "signet-main-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("npm start's entry point (local/main.ts)", () => {
  it("starts the stand-ins and the API, answers health, and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "local/main.ts"], {
      env: { ...process.env, PORT: "0", SIGNET_SES_PORT: "0", SIGNET_DATA_DIR: dataDir, SIGNET_LOG_LEVEL: "WARN" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 90 s:\n${output}`)), 90_000);
      child.stdout.on("data", () => {
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.on("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    });
    expect(output).toMatch(/mail \(browser\): http:\/\/127\.0\.0\.1:\d+/);
    const health = await fetch(`${url}/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "healthy" });

    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(output).toContain("SIGTERM: finishing requests under way");
  }, 120_000);
});

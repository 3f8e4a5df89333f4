import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allSettings, lazyConfig, loadConfig } from "#config";

describe("loadConfig", () => {
  it("gives local defaults", () => {
    const config = loadConfig({});
    expect(config.runtime).toBe("local");
    expect(config.limits.maxDocumentBytes).toBe(25 * 1024 * 1024);
    expect(config.limits.maxJsonDepth).toBe(32);
    expect(config.fetch).toMatchObject({ allowHttp: false, timeoutMs: 10_000, maxRedirects: 3 });
    expect(config.pictures.renderTimeoutMs).toBe(10_000);
  });

  it("reads the picture time limit within its bounds and names them when it is outside", () => {
    expect(loadConfig({ SIGNET_PICTURE_RENDER_TIMEOUT_MS: "100" }).pictures.renderTimeoutMs).toBe(100);
    expect(loadConfig({ SIGNET_PICTURE_RENDER_TIMEOUT_MS: "60000" }).pictures.renderTimeoutMs).toBe(60_000);
    expect(() => loadConfig({ SIGNET_PICTURE_RENDER_TIMEOUT_MS: "0" })).toThrowError(
      'Configuration error: SIGNET_PICTURE_RENDER_TIMEOUT_MS must be a whole number of milliseconds from 100 to 60000, got "0"',
    );
  });

  it.each([
    ["SIGNET_MAX_FIELDS", "many"],
    ["SIGNET_MAX_JSON_DEPTH", "-1"],
    ["SIGNET_ALLOW_HTTP", "perhaps"],
    ["SIGNET_CONVERSION_MODE", "lukewarm"],
    ["SIGNET_PICTURE_RENDER_TIMEOUT_MS", "99"],
    ["SIGNET_PICTURE_RENDER_TIMEOUT_MS", "60001"],
    ["SIGNET_PICTURE_RENDER_TIMEOUT_MS", "2.5"],
    ["SIGNET_PICTURE_RENDER_TIMEOUT_MS", "10s"],
  ])("fails loudly on %s=%s", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrowError(new RegExp(name));
  });

  it("carries the stand-ins' credentials locally, so no caller writes them into process.env; on AWS the SDK's chain", () => {
    const pair = { AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "s3cret" };
    expect(loadConfig(pair).credentials).toEqual({ accessKeyId: "local", secretAccessKey: "s3cret" });
    expect(loadConfig({ AWS_ACCESS_KEY_ID: "local" }).credentials).toBeUndefined();
    const aws = { ...pair, AWS_LAMBDA_FUNCTION_NAME: "signet-sign", SIGNET_TABLE: "t", SIGNET_SENDER_EMAIL: "noreply@example.com" };
    expect(loadConfig(aws).credentials).toBeUndefined();
  });

  it("requires the AWS settings inside Lambda", () => {
    expect(() => loadConfig({ AWS_LAMBDA_FUNCTION_NAME: "signet-sign" })).toThrowError(/SIGNET_TABLE is required/);
    const config = loadConfig({
      AWS_LAMBDA_FUNCTION_NAME: "signet-sign",
      SIGNET_TABLE: "t",
      SIGNET_SENDER_EMAIL: "noreply@example.com",
    });
    expect(config.runtime).toBe("aws");
  });
});

describe("lazyConfig", () => {
  it("reads each group on first use, so a function needs only the settings it touches", () => {
    const env: Record<string, string | undefined> = { AWS_LAMBDA_FUNCTION_NAME: "signet-verify", SIGNET_MAX_PDF_PAGES: "7" };
    const config = lazyConfig(env);
    // verify on AWS: no key table, no sender, and it starts.
    expect(config.runtime).toBe("aws");
    expect(config.limits.maxPdfPages).toBe(7);
    expect(config.documentLimits.maxPdfPages).toBe(7);
    expect(() => config.keys).toThrowError(/SIGNET_TABLE is required/);
    expect(() => config.mail).toThrowError(/SIGNET_SENDER_EMAIL is required/);
    // Read once: a later change of the environment does not move a group already read.
    env.SIGNET_MAX_PDF_PAGES = "9";
    expect(config.limits.maxPdfPages).toBe(7);
  });

  it("fails loudly on a bad value when its group is first read", () => {
    const config = lazyConfig({ SIGNET_MAX_FIELDS: "many" });
    expect(config.fetch.timeoutMs).toBe(10_000);
    expect(() => config.limits).toThrowError(/SIGNET_MAX_FIELDS/);
  });

  it("gives the same values as loadConfig", () => {
    const env = { SIGNET_TABLE: "t", SIGNET_PUBLIC_URL: "https://example.com/", SIGNET_TSA_URL: "http://tsa.example" };
    expect({ ...lazyConfig(env) }).toEqual(loadConfig(env));
  });
});

describe("settings", () => {
  it("are each listed in docs/configuration.md", () => {
    const docs = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    const missing = allSettings.filter((setting) => !docs.includes(`| \`${setting.name}\` |`)).map((setting) => setting.name);
    expect(missing).toEqual([]);
    expect(new Set(allSettings.map((setting) => setting.name)).size).toBe(allSettings.length);
  });
});

import { describe, expect, it } from "vitest";
import { loadConfig } from "#config";

describe("loadConfig", () => {
  it("gives local defaults", () => {
    const config = loadConfig({});
    expect(config.runtime).toBe("local");
    expect(config.limits.maxDocumentBytes).toBe(25 * 1024 * 1024);
    expect(config.limits.maxJsonDepth).toBe(32);
    expect(config.fetch).toMatchObject({ allowHttp: false, timeoutMs: 10_000, maxRedirects: 3 });
  });

  it.each([
    ["SIGNET_MAX_FIELDS", "many"],
    ["SIGNET_MAX_JSON_DEPTH", "-1"],
    ["SIGNET_ALLOW_HTTP", "perhaps"],
    ["SIGNET_CONVERSION_MODE", "lukewarm"],
  ])("fails loudly on %s=%s", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrowError(new RegExp(name));
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

import { readFileSync } from "node:fs";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { keyNoticeMail } from "#domain/keys/key-mail.ts";
import { publicBaseUrl } from "#http/public-url.ts";
import { testContainer } from "#test/helpers/container.ts";

/** baseUrlWith is publicBaseUrl under a configuration read from `env` (the settings that decide it). */
function baseUrlWith(env: Record<string, string>, event: APIGatewayProxyEvent, localServerUrl?: string): string {
  const { publicUrl, runtime } = loadConfig(env);
  return publicBaseUrl(event, { publicUrl, runtime, localServerUrl });
}

const awsEvent = () => JSON.parse(readFileSync("events/auth-verify.json", "utf8")) as APIGatewayProxyEvent;

describe("the base URL of links in e-mails", () => {
  const aws = { AWS_LAMBDA_FUNCTION_NAME: "signet-auth-verify", SIGNET_TABLE: "t", SIGNET_SENDER_EMAIL: "noreply@example.com" };

  it("on AWS is the gateway's domain and stage, never the client's Host header", () => {
    const event = awsEvent();
    event.headers.Host = "evil.example";
    expect(baseUrlWith(aws, event)).toBe("https://abcdef1234.execute-api.eu-west-1.amazonaws.com/prod");
  });

  it("follows a custom domain without a stage prefix", () => {
    const event = awsEvent();
    event.requestContext.domainName = "api.example.com";
    event.requestContext.path = "/v1/auth/verify";
    expect(baseUrlWith(aws, event)).toBe("https://api.example.com");
  });

  it("is SIGNET_PUBLIC_URL when set (trailing slashes dropped)", () => {
    expect(baseUrlWith({ ...aws, SIGNET_PUBLIC_URL: "https://signet.example.com/" }, awsEvent())).toBe("https://signet.example.com");
  });

  it("locally is the local server's own address, never the Host the client sent", () => {
    const event = awsEvent();
    event.headers = { Host: "evil.example:3000" };
    const container = testContainer({ AWS_LAMBDA_FUNCTION_NAME: "" });
    container.useLocalServerUrl("http://localhost:4123/");
    expect(baseUrlWith({}, event, container.localServerUrl())).toBe("http://localhost:4123");
  });
});

describe("the key notice e-mail", () => {
  it("names the key by hint and id, the one-time link with its expiry, and the DELETE endpoint", () => {
    const mail = keyNoticeMail("me@example.com", "sgn_...t9m1", "2026-11-22T10:00:00.000Z", {
      keyId: "key_3hT9sQw0LmZp2xVb",
      baseUrl: "https://api.example.com",
      linkUrl: "https://api.example.com/v1/keys/revoke?token=rvk_N3c8yQ1mWkP4sT7vB0xZ2aL5dR9fH6jE",
      linkExpiresAt: "2026-11-29T10:00:00.000Z",
    });
    expect(mail.text).toContain("https://api.example.com/v1/keys/revoke?token=rvk_N3c8yQ1mWkP4sT7vB0xZ2aL5dR9fH6jE");
    expect(mail.text).toContain("until 2026-11-29 10:00 UTC");
    expect(mail.text).toContain("DELETE https://api.example.com/v1/keys/key_3hT9sQw0LmZp2xVb");
    expect(mail.text).not.toMatch(/ask the operator/);
    expect(mail.html).toContain('href="https://api.example.com/v1/keys/revoke?token=rvk_N3c8yQ1mWkP4sT7vB0xZ2aL5dR9fH6jE"');
  });
});

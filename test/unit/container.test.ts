// The container: a configuration value in, every instance built from it on first use; two
// containers in one process hold two configurations side by side (no process.env, no re-import).
import { readFileSync } from "node:fs";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { makeInfoHandler } from "#functions/info.ts";
import { testContainer } from "#test/helpers/container.ts";
import { safeFetcher } from "#wiring/fetch.ts";
import { converter } from "#wiring/conversion.ts";
import { signing } from "#wiring/signing.ts";

const infoEvent = () => JSON.parse(readFileSync(new URL("../../events/info.json", import.meta.url), "utf8")) as APIGatewayProxyEvent;
const context = { functionName: "signet-info", awsRequestId: "container-test", getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe("createContainer", () => {
  it("builds a part once, on first use, and keeps it", () => {
    const container = testContainer();
    expect(safeFetcher(container)).toBe(safeFetcher(container));
    expect(signing(container)).toBe(signing(container));
    expect(signing(container).identityStore()).toBe(signing(container).identityStore());
  });

  it("gives each container its own instances", () => {
    const one = testContainer();
    const other = testContainer();
    expect(safeFetcher(one)).not.toBe(safeFetcher(other));
    expect(converter(one)).not.toBe(converter(other));
  });

  it("uses an override instead of building the part", () => {
    const fetcher: Fetcher = { fetch: async () => ({ bytes: Buffer.from("x") }) };
    expect(safeFetcher(testContainer({}, { safeFetcher: fetcher }))).toBe(fetcher);
  });

  it("makes handlers that answer with their own container's settings, two configurations in one process", async () => {
    const answer = async (version: string) => {
      const handler = makeInfoHandler(testContainer({ SIGNET_VERSION: version }));
      const response = await handler(infoEvent(), context);
      return (JSON.parse(response.body) as { version: string }).version;
    };
    expect(await answer("1.2.3")).toBe("1.2.3");
    expect(await answer("4.5.6")).toBe("4.5.6");
  });

  it("fails loudly on a bad setting, when its group is first read", () => {
    expect(() => testContainer({ SIGNET_FETCH_TIMEOUT_MS: "soon" })).toThrow(/Configuration error: SIGNET_FETCH_TIMEOUT_MS must be a positive integer/);
  });

  it("keeps the local server's address per container (the CRL URL and mail links follow it)", () => {
    const one = testContainer({ SIGNET_PUBLIC_URL: "" });
    const other = testContainer({ SIGNET_PUBLIC_URL: "" });
    one.useLocalServerUrl("http://localhost:4100/");
    expect(one.localServerUrl()).toBe("http://localhost:4100");
    expect(other.localServerUrl()).toBeUndefined();
    expect(signing(one).ownCrlUrl()).toBe("http://localhost:4100/v1/verify/crl");
    expect(signing(other).ownCrlUrl()).toBeUndefined();
  });
});

import { readFileSync } from "node:fs";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { routes } from "#http/routes.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// config.ts reads each group of settings on first use, so a function needs only the settings it
// uses. Here every entry file is loaded as its Lambda starts: in a fresh module graph, with
// AWS_LAMBDA_FUNCTION_NAME set and exactly the SIGNET_* variables the stack gives it.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

const names = [...routes.map((route) => route.name), "authorizer", "fallback", "crl-issuer", "webhook-sweeper"];
const deployedEnv = (name: string) => {
  const variables = (synth.json.Resources[functionLogicalId(name)]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  // CloudFormation references ({ Ref: ... }) become placeholder names.
  return Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, typeof value === "string" ? value : `deployed-${key.toLowerCase()}`]));
};

/** asDeployed replaces every SIGNET_* variable of this process by the function's deployed ones. */
function asDeployed(name: string): void {
  for (const key of Object.keys(process.env)) if (key.startsWith("SIGNET_")) vi.stubEnv(key, undefined);
  for (const [key, value] of Object.entries(deployedEnv(name))) if (key.startsWith("SIGNET_")) vi.stubEnv(key, value);
  vi.stubEnv("AWS_LAMBDA_FUNCTION_NAME", `signet-${name}`);
  vi.stubEnv("AWS_REGION", "eu-west-1");
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const context = { functionName: "signet", awsRequestId: "function-env", getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe("each function with its deployed environment", () => {
  // convert starts LibreOffice while it loads on AWS (start-at-init.ts): not here.
  it.each(names.filter((name) => name !== "convert"))("%s loads", async (name) => {
    asDeployed(name);
    vi.resetModules();
    const entry = (await import(`../../functions/${name}.ts`)) as { handler: unknown };
    expect(typeof entry.handler).toBe("function");
  });

  it.each(["info", "health", "openapi", "docs"])("%s answers its sample event", async (name) => {
    asDeployed(name);
    vi.resetModules();
    const { handler } = (await import(`../../functions/${name}.ts`)) as {
      handler: (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number }>;
    };
    const event = JSON.parse(readFileSync(new URL(`../../events/${name}.json`, import.meta.url), "utf8")) as APIGatewayProxyEvent;
    expect((await handler(event, context)).statusCode).toBe(200);
  });

  it("leaves the key table and the sender out of functions that do not use them", () => {
    // verify reads the key table only to check the key of a job (Prefer: respond-async); health never.
    expect(deployedEnv("health").SIGNET_TABLE).toBeUndefined();
    expect(deployedEnv("info").SIGNET_SENDER_EMAIL).toBeUndefined();
  });
});

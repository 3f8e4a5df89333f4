// A job's conversion on AWS gets the job's budget, a request's the routes' 76 s (issue 38). The
// functions are configured as the synthesized stack configures them (each one's environment from
// the template), the converters invoke through the real AWS SDK client a Lambda stand-in that runs
// the real office handler of the function they name; the office handlers' converter is a plain
// recording object, so what is checked is the time limit LibreOffice would have been given.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversionOptions } from "#domain/documents/converter.ts";
import { intake } from "#domain/documents/intake.ts";
import { jobTimeLimit } from "#http/jobs.ts";
import { makeOfficeHandler } from "#functions/office.ts";
import { JOB_WORKER_TIMEOUT_SECONDS } from "#functions/timeouts.ts";
import type { OfficeConverter } from "#wiring/conversion.ts";
import { converter, intakeLimits } from "#wiring/conversion.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { testContainer } from "#test/helpers/container.ts";
import { SYNTH_TIMEOUT_MS, synthesize, type Synthesized } from "#test/helpers/infra-synth.ts";
import { startLambdaStandIn, type LambdaStandIn } from "#test/helpers/lambda-stand-in.ts";

let synth: Synthesized;
let lambda: LambdaStandIn;
/** given records the options each office function's converter was called with. */
const given: Record<string, ConversionOptions[]> = { office: [], "office-jobs": [] };

/** envOf is a function's environment in the template: strings as they are, a Ref as the logical id it names. */
function envOf(name: string): Record<string, string> {
  const variables = (synth.json.Resources[functionLogicalId(name)]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const entries = Object.entries(variables).flatMap(([key, value]) => {
    if (typeof value === "string") return [[key, value]];
    const ref = (value as { Ref?: unknown }).Ref;
    return typeof ref === "string" ? [[key, ref]] : [];
  });
  return Object.fromEntries(entries);
}

/** recording is an office function's converter: notes the options, answers a PDF's first bytes. */
function recording(name: string): OfficeConverter {
  return {
    convert: async (_, options) => {
      given[name]!.push(options);
      return Buffer.from("%PDF-1.7\n%%EOF\n");
    },
    warm: async () => {},
    startEarly: async () => {},
    close: async () => {},
    isolation: () => undefined,
  };
}

/** officeHandler is the office handler as an office function of the stack runs it (its SIGNET_CONVERSION_TIMEOUT_MS). */
function officeHandler(name: "office" | "office-jobs") {
  const { SIGNET_CONVERSION_TIMEOUT_MS } = envOf(name);
  return makeOfficeHandler(testContainer({ SIGNET_CONVERSION_TIMEOUT_MS: SIGNET_CONVERSION_TIMEOUT_MS! }, { converter: recording(name) }));
}

/** callerConverter is the converter of a function of the stack (its SIGNET_OFFICE_FUNCTION), invoking through the stand-in. */
function callerConverter(name: string) {
  const container = testContainer({ SIGNET_OFFICE_FUNCTION: envOf(name).SIGNET_OFFICE_FUNCTION!, SIGNET_LAMBDA_ENDPOINT: lambda.endpoint });
  return { convert: converter(container), limits: intakeLimits(container.config) };
}

beforeAll(async () => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
  lambda = await startLambdaStandIn({
    [functionLogicalId("office")]: officeHandler("office"),
    [functionLogicalId("office-jobs")]: officeHandler("office-jobs"),
  });
}, SYNTH_TIMEOUT_MS);

afterAll(async () => {
  await lambda?.close();
});

/** convertAs converts a small DOCX as the named function of the stack would, with `options`; answers who was invoked and the limit each office function applied. */
async function convertAs(name: string, options: Partial<ConversionOptions> = {}) {
  lambda.invocations.length = 0;
  given.office!.length = 0;
  given["office-jobs"]!.length = 0;
  const caller = callerConverter(name);
  const document = await intake(fixtureDocx({ title: "Budget" }), "docx", caller.limits);
  const pdf = await caller.convert.convert(document, { to: "pdf", ...options });
  expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  return {
    invoked: lambda.invocations.map((invocation) => invocation.functionName),
    limits: Object.fromEntries(Object.entries(given).map(([office, calls]) => [office, calls.map((call) => call.timeoutMs)])),
  };
}

describe("a job's conversion (the job worker)", () => {
  it("a fresh worker's job converts within the job's 15 minutes less margins (867 s), in the jobs' office function", async () => {
    const now = Date.now();
    const { timeoutMs } = jobTimeLimit(now + JOB_WORKER_TIMEOUT_SECONDS * 1000, now);
    expect(timeoutMs).toBe(890_000);
    const { invoked, limits } = await convertAs("jobs-worker", { timeoutMs: timeoutMs! });
    expect(invoked).toEqual([functionLogicalId("office-jobs")]);
    // 890 s less the worker's two transfers (6 s) and the invoke's cold start, transfers and answer (17 s).
    expect(limits).toEqual({ office: [], "office-jobs": [867_000] });
  });

  it("a job that already spent 5 minutes converts within what it has left, not 76 s", async () => {
    const now = Date.now();
    const { timeoutMs } = jobTimeLimit(now + (JOB_WORKER_TIMEOUT_SECONDS - 300) * 1000, now);
    const { invoked, limits } = await convertAs("jobs-worker", { timeoutMs: timeoutMs! });
    expect(invoked).toEqual([functionLogicalId("office-jobs")]);
    expect(limits["office-jobs"]).toEqual([590_000 - 23_000]);
  });

  it("a job's conversion without a budget of its own (sign's DOCX) keeps the usual 76 s", async () => {
    const { invoked, limits } = await convertAs("jobs-worker");
    expect(invoked).toEqual([functionLogicalId("office-jobs")]);
    expect(limits["office-jobs"]).toEqual([76_000]);
  });
});

describe("a request's conversion (the streaming routes)", () => {
  it.each(["convert", "annotate", "sign", "merge"])("%s converts within the routes' 76 s, in the office function", async (name) => {
    const { invoked, limits } = await convertAs(name);
    expect(invoked).toEqual([functionLogicalId("office")]);
    expect(limits).toEqual({ office: [76_000], "office-jobs": [] });
  });

  it("and could not stretch it: a job's budget sent to the routes' office function is cut to its 76 s", async () => {
    const { invoked, limits } = await convertAs("convert", { timeoutMs: 890_000 });
    expect(invoked).toEqual([functionLogicalId("office")]);
    expect(limits.office).toEqual([76_000]);
  });
});

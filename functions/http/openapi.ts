import * as z from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import type { ErrorCode } from "#domain/shared/errors.ts";
import { errorBodySchema } from "#http/contracts/common.ts";
import { jobSchema } from "#http/contracts/jobs.ts";
import { errorTable, reasonPhrases } from "#http/error-table.ts";
import { codeSamplesOf } from "#http/openapi-code-samples.ts";
import { genericErrorExamples, operationExamples, type ErrorExample, type OperationExamples } from "#http/openapi-examples.ts";
import { routes, type Route } from "#http/routes.ts";
import { awsLimitsText } from "#http/aws-limits.ts";

const REQUEST_ID_EXAMPLE = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef";

// Every answer, success or error, carries the request id the logs are keyed by.
const requestIdHeader = {
  "X-Request-Id": {
    description:
      "The id of this request in Signet's logs; quote it when reporting a problem. A request's own X-Request-Id (at most 128 characters of A-Z, a-z, 0-9, '.', '_', '-') is kept and echoed; otherwise Signet makes one.",
    schema: { type: "string" as const },
    example: REQUEST_ID_EXAMPLE,
  },
};

/** errorExample is the example body of one error code on one route. */
// Authorised routes count each key's requests per minute (SIGNET_KEY_RATE_LIMIT, functions/domain/keys/key-rate.ts).
const perKeyRateExample: ErrorExample = {
  message: "This API key made its 60 requests for this minute (at most 60 per 1 minute per key). Retry in 23 seconds.",
};

function errorExample(route: Route, code: ErrorCode, status: number) {
  const perKey = route.auth && code === "RATE_LIMIT_ERROR" ? perKeyRateExample : undefined;
  const example = operationExamples[route.name].errors?.[code] ?? perKey ?? genericErrorExamples[code];
  return {
    code,
    error: reasonPhrases[status],
    message: example.message,
    requestId: REQUEST_ID_EXAMPLE,
    ...(example.details ? { details: example.details } : {}),
  };
}

/** errorCodesOf lists every error a route can answer with, the shared ones included. */
export function errorCodesOf(route: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (route.query || route.params || route.body.kind !== "none") codes.add("VALIDATION_ERROR");
  if (route.auth) {
    codes.add("AUTHENTICATION_ERROR");
    codes.add("SERVICE_UNAVAILABLE"); // the key check itself cannot reach its store
  }
  if (route.body.kind !== "none") {
    codes.add("PAYLOAD_TOO_LARGE");
    codes.add("UNSUPPORTED_MEDIA_TYPE");
    codes.add("REQUEST_TIMEOUT"); // the body did not arrive in time
  }
  codes.add("HEADERS_TOO_LARGE");
  for (const code of route.errors) codes.add(code);
  if (route.async) {
    codes.add("SYNC_TIMEOUT"); // over SIGNET_SYNC_BUDGET_MS without Prefer: respond-async
    codes.add("SERVICE_UNAVAILABLE"); // the job store cannot be reached
  }
  if (route.idempotent) {
    codes.add("IDEMPOTENCY_KEY_REUSED");
    codes.add("IDEMPOTENCY_KEY_IN_USE");
    codes.add("SERVICE_UNAVAILABLE"); // the idempotency store cannot be reached
  }
  codes.add("RATE_LIMIT_ERROR"); // the gateway throttles every route
  codes.add("INTERNAL_ERROR");
  return [...codes];
}

function errorResponses(route: Route): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const { status } = errorTable[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status) as "400"] = {
      description: codes.map((code) => `\`${code}\`: ${errorTable[code].description}`).join(" "),
      headers: {
        ...requestIdHeader,
        ...(status === 429 || status === 409 || status === 503
          ? {
              "Retry-After": {
                description:
                  status === 503
                    ? "Seconds to wait before retrying, when the wait is known (60 while the converter wakes up)."
                    : "Seconds to wait before retrying.",
                schema: { type: "string" },
                example: status === 503 ? "60" : "30",
              },
            }
          : {}),
      },
      content: {
        "application/json": {
          schema: errorBodySchema,
          examples: Object.fromEntries(codes.map((code) => [code, { summary: errorTable[code].description, value: errorExample(route, code, status) }])),
        },
      },
    };
  }
  return responses;
}

/** idempotencyKeyHeader is the Idempotency-Key request header of idempotent routes (functions/http/idempotency.ts). */
const idempotencyKeyHeader = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x20-\x7e]+$/)
    .optional()
    .meta({
      description:
        "Makes a retry safe (IETF httpapi Idempotency-Key draft): 1-255 printable ASCII characters of your choosing, a UUID for example. For 24 hours the first answer (success, or a 400/413/415/422) is kept for this API key and this exact request (method, path, query, body bytes): the same request with the same key gets it again byte for byte with `Idempotent-Replayed: true`, without running again; another request with the key is 422 `IDEMPOTENCY_KEY_REUSED`; a retry while the first still runs is 409 `IDEMPOTENCY_KEY_IN_USE` with Retry-After. 404, 429 and 5xx answers are not kept: a retry runs again.",
      example: "5f1c7f2e-8d4b-4a7e-9c61-0e7f3d2b9a10",
    }),
});

/** preferHeader is the Prefer request header of routes that run as jobs (functions/http/jobs.ts). */
const preferHeader = z.object({
  Prefer: z.string().optional().meta({
    description:
      "`respond-async` (RFC 7240): the request becomes a job, answered at once with 202, the job, `Location: /v1/jobs/{id}` and `Retry-After`; a worker runs it with a 15-minute budget through this same route, and GET /v1/jobs/{id} gives its result or error. A JSON body may then carry `callbackUrl` (an https URL of a public host) for a signed webhook when the job ends. Only with an API key (the job belongs to it). With an Idempotency-Key, a retry gets the same job. Without the header the route answers as it always did.",
    example: "respond-async",
  }),
});

/** acceptedResponse is the 202 of a request with Prefer: respond-async. */
function acceptedResponse(): ZodOpenApiResponsesObject["202"] {
  const header = (description: string, example: string) => ({ description, schema: { type: "string" as const }, example });
  return {
    description: "With `Prefer: respond-async`: the job was accepted; read it at Location.",
    headers: {
      ...requestIdHeader,
      Location: header("The job resource.", "/v1/jobs/job_3hT9sQw0LmZp2xVbQe81rJ"),
      "Retry-After": header("Seconds to wait before reading the job.", "1"),
      "Preference-Applied": header("`respond-async`.", "respond-async"),
      ...replayedHeader,
    },
    content: {
      "application/json": {
        schema: jobSchema,
        example: { id: "job_3hT9sQw0LmZp2xVbQe81rJ", status: "queued", route: "sign", createdAt: "2026-11-27T10:00:00.000Z" },
      },
    },
  };
}

/** replayedHeader marks a replayed answer on the success response of idempotent routes. */
const replayedHeader = {
  "Idempotent-Replayed": {
    description: "`true` when this is the kept answer of an earlier request with the same Idempotency-Key (absent otherwise).",
    schema: { type: "string" as const },
    example: "true",
  },
};

/** alternativeContent is the second answer of a route whose request can ask for another shape (split's uploads). */
function alternativeContent(alternative: Route["success"]["alternative"]) {
  if (!alternative) return {};
  const { contentType, schema, example } = alternative;
  return { [contentType]: { schema, ...(example === undefined ? {} : { example }) } };
}

function successResponse(route: Route, examples: OperationExamples): ZodOpenApiResponsesObject["200"] {
  const binary = z.string().meta({ format: "binary" });
  const schema = route.success.schema ?? (route.success.contentType === "application/json" ? z.object({}).loose() : binary);
  const successHeaders = Object.fromEntries(
    Object.entries(examples.successHeaders ?? {}).map(([name, header]) => [
      name,
      { description: header.description, schema: { type: "string" as const }, example: header.example },
    ]),
  );
  return {
    description: route.success.description,
    headers: { ...requestIdHeader, ...(route.idempotent ? replayedHeader : {}), ...successHeaders },
    content: {
      [route.success.contentType]: {
        schema,
        ...(examples.success ? { examples: examples.success } : route.success.example !== undefined ? { example: route.success.example } : {}),
      },
      ...Object.fromEntries(Object.entries(examples.alternativeContent ?? {}).map(([type, description]) => [type, { schema: binary.meta({ description }) }])),
      ...alternativeContent(route.success.alternative),
    },
  };
}

function operationOf(route: Route): ZodOpenApiOperationObject {
  const examples = operationExamples[route.name];
  const operation: ZodOpenApiOperationObject = {
    operationId: route.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    ...(route.auth ? { security: [{ bearerAuth: [] }] } : { security: [] }),
    ...(route.query || route.params || route.idempotent || route.async
      ? {
          requestParams: {
            ...(route.query ? { query: route.query as z.ZodObject } : {}),
            ...(route.params ? { path: route.params } : {}),
            ...(route.idempotent || route.async
              ? { header: z.object({ ...(route.idempotent ? idempotencyKeyHeader.shape : {}), ...(route.async ? preferHeader.shape : {}) }) }
              : {}),
          },
        }
      : {}),
    responses: {
      "200": successResponse(route, examples),
      ...(route.async ? { "202": acceptedResponse() } : {}),
      ...errorResponses(route),
    },
    // Hand-written, tested request samples; the reference page shows them instead of generated ones.
    "x-codeSamples": codeSamplesOf(route.name),
  };
  if (route.body.kind === "json") {
    operation.requestBody = {
      required: true,
      content: {
        "application/json": {
          schema: route.body.schema,
          ...(examples.request ? { examples: examples.request } : route.body.example !== undefined ? { example: route.body.example } : {}),
        },
      },
    };
  } else if (route.body.kind === "multipart") {
    // A route taking ?upload= (convert) may come without a body.
    const takesUpload = route.query instanceof z.ZodObject && "upload" in route.query.shape;
    operation.requestBody = {
      required: !takesUpload,
      description: route.body.description,
      content: {
        "multipart/form-data": {
          schema: z.object({ file: z.string().meta({ format: "binary", description: "The file to convert; its name gives the answer's file name." }) }),
          encoding: { file: { contentType: "application/octet-stream" } },
        },
      },
    };
  }
  return operation;
}

/**
 * gatewayErrorResponses documents the errors of requests no route takes (404, 405) and of requests
 * the deployed gateway refuses itself (403, e.g. an operator's firewall rule), shared by every path.
 */
function gatewayErrorResponses() {
  const entry = (code: "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "REQUEST_REJECTED") => {
    const { status } = errorTable[code];
    const example = genericErrorExamples[code];
    return {
      description: `\`${code}\`: ${errorTable[code].description}`,
      headers: requestIdHeader,
      content: {
        "application/json": {
          schema: errorBodySchema,
          examples: {
            [code]: {
              summary: errorTable[code].description,
              value: { code, error: reasonPhrases[status], message: example.message, requestId: REQUEST_ID_EXAMPLE },
            },
          },
        },
      },
    };
  };
  return { NotFound: entry("NOT_FOUND"), MethodNotAllowed: entry("METHOD_NOT_ALLOWED"), RequestRejected: entry("REQUEST_REJECTED") };
}

/** openApiDocument generates the OpenAPI 3.1 document of exactly the routes in the catalogue, for the service version given. */
export function openApiDocument(version: string): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route) };
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Signet API",
      version,
      description:
        "Self-hostable document engine: PAdES signatures with an audit trail certificate, Word template filling, office to PDF conversion. " +
        "Every error has the layout of the Error schema. An unknown path answers 404 `NOT_FOUND`, a known path with the wrong method 405 `METHOD_NOT_ALLOWED`. " +
        awsLimitsText() +
        "\n\n" +
        "**Getting a key.** Sign, annotate and convert need `Authorization: Bearer sgn_...`. Call `GET /v1/auth/register?email=you@example.com`: " +
        "a 6-digit code is mailed to that address (valid 15 minutes, 5 tries). On the local server (`npm start`) no mail leaves the machine: the code is " +
        "printed in the terminal running `npm start`, shown in a browser at http://127.0.0.1:8005 (the local mail stand-in; `SIGNET_SES_PORT` changes the port) " +
        "and kept as JSON at http://127.0.0.1:8005/store. Exchange it with `GET /v1/auth/verify?email=you@example.com&code=123456`: the answer holds the key, " +
        "shown once. To try a protected call on this page, paste the key into the Authentication field (bearerAuth).\n\n" +
        "**Samples.** Each operation has hand-written curl, JavaScript (fetch, Node 20+) and Python (requests) samples, run by Signet's test suite against the " +
        "local server. They call http://localhost:3000 (replace it by your deployment's address), read the key from the environment variable `SIGNET_KEY`, " +
        "and send the sample files in `examples/files/` of the repository (run them from its root).",
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative to this document, so a client generator keeps a stage prefix (/prod/openapi.json).
    servers: [{ url: ".", description: "This server" }],
    tags: [
      { name: "API keys", description: "Register an e-mail address and receive an API key." },
      { name: "Sign", description: "Sign documents and check signatures." },
      { name: "Annotate", description: "Fill DOCX templates and PDF forms." },
      { name: "Convert", description: "Convert office documents." },
      {
        name: "PDF tools",
        description:
          "Merge, split and rearrange PDFs, stamp them, read and write their metadata, add or remove passwords; a signed input is refused (409 WOULD_INVALIDATE_SIGNATURES) where the change would break its signatures, unless dropSignatures says to remove them.",
      },
      { name: "Uploads", description: "Send documents too large for a request body on AWS straight to storage, then use them by reference." },
      { name: "Service", description: "Health, this document and the reference page." },
    ],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "An API key `sgn_...` from /v1/auth/verify. Each key may make 60 requests per minute (SIGNET_KEY_RATE_LIMIT) across all authorised routes, counted per aligned minute; over it the answer is 429 RATE_LIMIT_ERROR with Retry-After (the seconds until the minute ends).",
        },
      },
      responses: gatewayErrorResponses(),
    },
    paths,
  });
}

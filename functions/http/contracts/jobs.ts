import * as z from "zod";
import { JOB_ID, jobStatuses } from "#domain/jobs/job.ts";
import { defineRoute } from "#http/contract.ts";
import { errorBodySchema } from "#http/contracts/common.ts";

const jobId = z.string().regex(JOB_ID, "must be a job id as the 202 answer's Location names it (job_ and 22 characters)");

/** jobSchema is the job resource: the 202 of a request with Prefer: respond-async and GET /v1/jobs/{id}. */
export const jobSchema = z
  .object({
    id: z.string().meta({ example: "job_3hT9sQw0LmZp2xVbQe81rJ" }),
    status: z.enum(jobStatuses).meta({
      description:
        "queued (waiting for a worker), running, succeeded (result), failed (error), expired (the result was deleted SIGNET_JOB_TTL after the job finished, 24 h by default).",
    }),
    route: z.string().meta({ description: "The route that runs the job: sign, annotate, convert, verify or timestamp." }),
    createdAt: z.iso.datetime(),
    startedAt: z.iso.datetime().optional(),
    finishedAt: z.iso.datetime().optional(),
    expiresAt: z.iso.datetime().optional().meta({ description: "When a finished job's result is deleted." }),
    callbackUrl: z.string().optional(),
    result: z
      .object({
        statusCode: z.number().int().meta({ description: "The status the route answered (2xx)." }),
        contentType: z.string(),
        url: z
          .string()
          .optional()
          .meta({ description: "A presigned GET of the route's answer, byte for byte as the synchronous request gets it (answers over 16 KB)." }),
        urlExpiresAt: z.iso.datetime().optional(),
        body: z.unknown().optional().meta({ description: "The route's JSON answer itself, when it is at most 16 KB." }),
        base64: z.string().optional().meta({ description: "A small non-JSON answer (a converted file), base64." }),
      })
      .optional(),
    error: errorBodySchema.optional().meta({ description: "A failed job's error, in the layout of every error answer." }),
    deliveries: z.array(z.record(z.string(), z.unknown())).optional().meta({ description: "The attempts to deliver the job's webhook to callbackUrl." }),
  })
  .meta({ id: "Job" });

const params = z.strictObject({ id: jobId.meta({ description: "The job's id (the 202's Location).", example: "job_3hT9sQw0LmZp2xVbQe81rJ" }) });

/** jobRoute: GET /v1/jobs/{id} shows a job of the caller's key. */
export const jobRoute = defineRoute({
  name: "job",
  method: "GET",
  path: "/v1/jobs/{id}",
  auth: true,
  tag: "Jobs",
  summary: "Read an async job",
  description:
    "The state of a job a request with `Prefer: respond-async` started: queued, running, succeeded with the result (a presigned GET of the route's answer, or the answer inline when small), failed with the error in the usual layout, or expired. Only the key that submitted the job reads it; any other id answers 404.",
  params,
  body: { kind: "none" },
  success: {
    description: "The job.",
    contentType: "application/json",
    schema: jobSchema,
    example: {
      id: "job_3hT9sQw0LmZp2xVbQe81rJ",
      status: "succeeded",
      route: "sign",
      createdAt: "2026-11-27T10:00:00.000Z",
      startedAt: "2026-11-27T10:00:00.050Z",
      finishedAt: "2026-11-27T10:00:00.180Z",
      expiresAt: "2026-11-28T10:00:00.180Z",
      result: {
        statusCode: 200,
        contentType: "application/json; charset=utf-8",
        url: "https://…/jobs/job_3hT9sQw0LmZp2xVbQe81rJ/result?X-Amz-…",
        urlExpiresAt: "2026-11-27T11:00:00.000Z",
      },
      deliveries: [],
    },
  },
  errors: ["NOT_FOUND", "RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
});

/** jobRedeliverRoute: POST /v1/jobs/{id}/redeliver sends a finished job's webhook again. */
export const jobRedeliverRoute = defineRoute({
  name: "job-redeliver",
  method: "POST",
  path: "/v1/jobs/{id}/redeliver",
  auth: true,
  tag: "Jobs",
  summary: "Send a job's webhook again",
  description:
    "Delivers the webhook of a finished job of the caller's key to its callbackUrl again, now. A job without a callbackUrl, or of another key, answers 404.",
  params,
  body: { kind: "none" },
  success: {
    description: "The delivery was started.",
    contentType: "application/json",
    schema: z.object({ id: z.string(), message: z.string() }).meta({ id: "Redelivery" }),
    example: { id: "job_3hT9sQw0LmZp2xVbQe81rJ", message: "The webhook is being delivered again." },
  },
  errors: ["NOT_FOUND", "RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
});

/**
 * Wiring of the one middy chain (functions/http/pipeline.ts) for this container: its settings
 * from config, on authorised routes the per-key request limit counted in the key table, and on
 * idempotent routes the store of Idempotency-Key records.
 */
import type * as z from "zod";
import { config } from "#config";
import { guardUnhandledRejections } from "#adapters/process-guard.ts";
import type { RouteContract } from "#http/contract.ts";
import { httpHandler as chain, type HttpSettings, type RouteHandler } from "#http/pipeline.ts";
import { idempotencyDeps } from "#wiring/idempotency.ts";
import { jobDepsOf } from "#wiring/jobs.ts";
import { keyRateGuard } from "#wiring/keys.ts";

// Every HTTP entry point loads this module: a rejection one request leaves behind must not end the process.
guardUnhandledRejections();

/** httpSettings are the chain's settings, read from config (limits, CORS origin, runtime). */
function httpSettings(): HttpSettings {
  const { limits } = config;
  return {
    runtime: config.runtime,
    corsOrigin: config.cors.origin,
    maxRequestBytes: limits.maxRequestBytes,
    maxDocumentBytes: limits.maxDocumentBytes,
    maxJsonDepth: limits.maxJsonDepth,
  };
}

/** httpHandler wraps a route's logic in the one chain, with this container's settings and key-rate guard. */
export function httpHandler<Q extends z.ZodType, B extends z.ZodType>(contract: RouteContract<Q, B>, handler: RouteHandler<Q, B>) {
  return chain(contract, handler, {
    settings: httpSettings(),
    keyRate: contract.auth ? keyRateGuard() : undefined,
    idempotency: contract.idempotent ? idempotencyDeps() : undefined,
    jobs: contract.async ? jobDepsOf(config) : undefined,
  });
}

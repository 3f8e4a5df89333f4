/**
 * Wiring of the one middy chain (functions/http/pipeline.ts) for a container: its settings from
 * the container's config, on authorised routes the per-key request limit counted in the key
 * table, and on idempotent routes the store of Idempotency-Key records.
 */
import type * as z from "zod";
import type { Config } from "#config";
import { guardUnhandledRejections } from "#adapters/process-guard.ts";
import type { RouteContract } from "#http/contract.ts";
import { httpHandler as chain, type HttpSettings, type RouteHandler } from "#http/pipeline.ts";
import type { Container } from "#wiring/container.ts";
import { idempotencyDeps } from "#wiring/idempotency.ts";
import { jobDeps } from "#wiring/jobs.ts";
import { keyRateGuard } from "#wiring/keys.ts";

// Every HTTP entry point loads this module: a rejection one request leaves behind must not end the process.
guardUnhandledRejections();

/** httpSettings are the chain's settings, read from config (limits, CORS origin, runtime). */
function httpSettings(config: Config): HttpSettings {
  const { limits } = config;
  return {
    runtime: config.runtime,
    corsOrigin: config.cors.origin,
    maxRequestBytes: limits.maxRequestBytes,
    maxDocumentBytes: limits.maxDocumentBytes,
    maxJsonDepth: limits.maxJsonDepth,
  };
}

/** httpHandler wraps a route's logic in the one chain, with the container's settings, key-rate guard and idempotency store. */
export function httpHandler<Q extends z.ZodType, B extends z.ZodType>(container: Container, contract: RouteContract<Q, B>, handler: RouteHandler<Q, B>) {
  return chain(contract, handler, {
    settings: httpSettings(container.config),
    keyRate: contract.auth ? keyRateGuard(container) : undefined,
    idempotency: contract.idempotent ? idempotencyDeps(container) : undefined,
    jobs: contract.async ? jobDeps(container) : undefined,
  });
}

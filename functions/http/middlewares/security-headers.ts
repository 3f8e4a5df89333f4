import httpSecurityHeaders from "@middy/http-security-headers";
import type { RouteContract } from "#http/contract.ts";
import { named, type PipelineMiddleware } from "#http/middlewares/chain.ts";

/**
 * securityHeaders is Middy's security headers middleware: a strict Content-Security-Policy unless
 * the route sends its own (the docs page: hash-based), which its contract says.
 */
export function securityHeaders(contract: Pick<RouteContract, "contentSecurityPolicy">): PipelineMiddleware {
  return named("securityHeaders", httpSecurityHeaders(contract.contentSecurityPolicy === "handler" ? { contentSecurityPolicy: false } : {}));
}

import httpCors from "@middy/http-cors";
import { named, type PipelineMiddleware } from "#http/middlewares/chain.ts";

/**
 * cors is Middy's CORS middleware with Signet's headers: it answers a browser's preflight itself
 * (before any other step) and adds Access-Control-* to every answer, errors included.
 */
export function cors(origin: string): PipelineMiddleware {
  const middleware = httpCors({
    origin,
    headers: "Authorization,Content-Type,X-Request-Id,Idempotency-Key,Prefer",
    methods: "GET,HEAD,POST,DELETE,OPTIONS",
    exposeHeaders: "X-Request-Id,Retry-After,Content-Disposition,Signet-Input-Rewritten,Signet-Notice,Idempotent-Replayed,Location,Preference-Applied",
    maxAge: 600,
    disableBeforePreflightResponse: false,
  });
  return named("cors", middleware);
}

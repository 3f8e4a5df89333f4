import type * as z from "zod";
import type { ErrorCode } from "#domain/shared/errors.ts";

/** HttpMethod is a method a route answers to. */
export type HttpMethod = "GET" | "POST" | "DELETE";

/** BodyKind says how the pipeline reads a request body. */
export type BodyContract<B extends z.ZodType> = { kind: "json"; schema: B; example?: unknown } | { kind: "multipart"; description: string } | { kind: "none" };

/** RouteContract describes one endpoint: the pipeline, the local server, the OpenAPI document and the stack read it. */
export interface RouteContract<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType, N extends string = string> {
  /** Name of the entry file in functions/ and of the Lambda function (its literal type becomes a RouteName). */
  name: N;
  method: HttpMethod;
  path: string;
  /** Whether the API-key authorizer runs first. */
  auth: boolean;
  summary: string;
  description: string;
  tag: string;
  query?: Q;
  /** Path parameters, named as in `path` (`/v1/keys/{id}`); each a string member. */
  params?: z.ZodObject;
  body: BodyContract<B>;
  success: {
    description: string;
    contentType: string;
    schema?: z.ZodType;
    example?: unknown;
    /** A second answer the request can ask for (split's `output: "uploads"`: JSON instead of the zip). */
    alternative?: { contentType: string; schema: z.ZodType; example?: unknown };
  };
  /**
   * Answer through Lambda response streaming (API Gateway ResponseTransferMode.STREAM):
   * for answers that can outgrow Lambda's 6 MB buffered limit. The pipeline and the stack read it.
   */
  streaming?: boolean;
  /**
   * Who sets Content-Security-Policy: the chain's strict default (unset), or "handler" for a page
   * that sends its own (the docs page allows its one inline script by hash).
   */
  contentSecurityPolicy?: "handler";
  /**
   * The route does work a retry must not repeat (sign, annotate, convert, verify, timestamp): it
   * takes an Idempotency-Key header (functions/http/idempotency.ts), and the stack lets its function
   * keep answers (the key table, the uploads bucket's idempotency/ folder).
   */
  idempotent?: true;
  /**
   * The route takes `Prefer: respond-async` (functions/http/jobs.ts): answered 202 with a job that a
   * worker runs through this route's own handler; the stack gives its function the job store and queue.
   */
  async?: true;
  /** Error codes this endpoint can answer with besides the ones every endpoint can. */
  errors: ErrorCode[];
  /**
   * A GET that changes state (sends mail, mints a key, revokes one): it answers GET only. HEAD
   * there gets 405 from the fallback, locally and on API Gateway, since answering HEAD by running
   * the GET and dropping the body would change state with the caller never seeing the result.
   */
  changesState?: true;
}

/** answersHead tells whether a route answers HEAD too (as GET without the body): safe GET routes only. */
export function answersHead(route: Pick<RouteContract, "method" | "changesState">): boolean {
  return route.method === "GET" && route.changesState !== true;
}

/**
 * matchPath matches a concrete path against a route path with `{name}` segments; the parameters,
 * or undefined when it does not match. A parameter matches one non-empty segment.
 */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const want = template.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const segment = got[i]!;
    const name = /^\{([A-Za-z]+)\}$/.exec(part)?.[1];
    if (name) {
      if (segment === "") return undefined;
      try {
        params[name] = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
    } else if (part !== segment) return undefined;
  }
  return params;
}

/**
 * findRoute picks the route for a method and path the way API Gateway does: a literal path
 * (`/v1/keys/revoke`) wins over a parameter (`/v1/keys/{id}`).
 */
export function findRoute<R extends Pick<RouteContract, "method" | "path">>(
  routes: readonly R[],
  method: string,
  path: string,
): { route: R; params: Record<string, string> } | undefined {
  const exact = routes.find((route) => route.path === path && route.method === method);
  if (exact) return { route: exact, params: {} };
  // A literal resource at this path shadows any parameter route (its other methods answer 405).
  if (routes.some((route) => route.path === path)) return undefined;
  for (const route of routes) {
    if (route.method !== method || !route.path.includes("{")) continue;
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return undefined;
}

/** defineRoute keeps a contract's literal types: its schemas and its name (routes.ts derives RouteName from the names). */
export function defineRoute<N extends string, Q extends z.ZodType, B extends z.ZodType>(contract: RouteContract<Q, B, N>): RouteContract<Q, B, N> {
  return contract;
}

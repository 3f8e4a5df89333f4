import type * as z from "zod";
import type { ErrorCode } from "#domain/errors.ts";

/** HttpMethod is a method a route answers to. */
export type HttpMethod = "GET" | "POST";

/** BodyKind says how the pipeline reads a request body. */
export type BodyContract<B extends z.ZodType> =
  | { kind: "json"; schema: B; example?: unknown }
  | { kind: "multipart"; description: string }
  | { kind: "none" };

/** RouteContract describes one endpoint: the pipeline, the local server, the OpenAPI document and the stack read it. */
export interface RouteContract<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  /** Name of the entry file in functions/ and of the Lambda function. */
  name: string;
  method: HttpMethod;
  path: string;
  /** Whether the API-key authorizer runs first. */
  auth: boolean;
  summary: string;
  description: string;
  tag: string;
  query?: Q;
  body: BodyContract<B>;
  success: { description: string; contentType: string; schema?: z.ZodType; example?: unknown };
  /**
   * Answer through Lambda response streaming (API Gateway ResponseTransferMode.STREAM; issue 15):
   * for answers that can outgrow Lambda's 6 MB buffered limit. The pipeline and the stack read it.
   */
  streaming?: boolean;
  /** Error codes this endpoint can answer with besides the ones every endpoint can. */
  errors: ErrorCode[];
}

/** defineRoute keeps a contract's literal types. */
export function defineRoute<Q extends z.ZodType, B extends z.ZodType>(contract: RouteContract<Q, B>): RouteContract<Q, B> {
  return contract;
}

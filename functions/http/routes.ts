import { annotateFieldsRoute, annotateRoute } from "#http/contracts/annotate.ts";
import { registerRoute, verifyCodeRoute } from "#http/contracts/auth.ts";
import { convertRoute } from "#http/contracts/convert.ts";
import { jobRedeliverRoute, jobRoute } from "#http/contracts/jobs.ts";
import { listKeysRoute, revokeKeyRoute, revokeLinkRoute } from "#http/contracts/keys.ts";
import { docsRoute, healthRoute, infoRoute, openapiRoute } from "#http/contracts/meta.ts";
import { protectRoute, unprotectRoute } from "#http/contracts/pdf-protect.ts";
import { mergeRoute, pagesRoute, splitRoute } from "#http/contracts/pdf-tools.ts";
import { metadataRoute } from "#http/contracts/pdf-metadata.ts";
import { stampRoute } from "#http/contracts/pdf-stamp.ts";
import { signRoute } from "#http/contracts/sign.ts";
import { timestampRoute } from "#http/contracts/timestamp.ts";
import { uploadsRoute } from "#http/contracts/uploads.ts";
import { verifyCrlRoute, verifyKeyRoute, verifyRoute } from "#http/contracts/verify.ts";
import { rotateWebhookSecretRoute, webhookSecretRoute } from "#http/contracts/webhooks.ts";
import type * as z from "zod";
import type { RouteContract } from "#http/contract.ts";

/**
 * routes is the catalogue of every endpoint: the local server routes by it, the OpenAPI document
 * is generated from it and the CDK stack creates one function and one API route per entry.
 */
export const routes = [
  infoRoute,
  healthRoute,
  openapiRoute,
  docsRoute,
  registerRoute,
  verifyCodeRoute,
  listKeysRoute,
  revokeKeyRoute,
  revokeLinkRoute,
  signRoute,
  timestampRoute,
  annotateRoute,
  annotateFieldsRoute,
  convertRoute,
  verifyRoute,
  verifyKeyRoute,
  verifyCrlRoute,
  uploadsRoute,
  jobRoute,
  jobRedeliverRoute,
  webhookSecretRoute,
  rotateWebhookSecretRoute,
  protectRoute,
  unprotectRoute,
  mergeRoute,
  splitRoute,
  pagesRoute,
  stampRoute,
  metadataRoute,
] as const satisfies readonly RouteContract[];

/** RouteName is the name of a route of the catalogue: its entry file functions/<name>.ts, its event events/<name>.json. */
export type RouteName = (typeof routes)[number]["name"];

/**
 * binaryMediaTypes makes API Gateway (REST) pass every body through as bytes: requests arrive
 * base64-encoded with isBase64Encoded set, and responses marked isBase64Encoded are decoded. The
 * pipeline decodes whatever arrives, and the local server encodes requests the same way.
 */
export const binaryMediaTypes = ["*/*"];

/** Route is a route of the catalogue, its name known to be a RouteName. */
export type Route = RouteContract<z.ZodType, z.ZodType, RouteName>;

import { verifyCodeRoute } from "#http/contracts/auth.ts";
import { notImplemented } from "#http/not-implemented.ts";

/** handler answers 501 until this endpoint's issue lands. */
export const handler = notImplemented(verifyCodeRoute);

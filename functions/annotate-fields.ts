import { annotateFieldsRoute } from "#http/contracts/annotate.ts";
import { notImplemented } from "#http/not-implemented.ts";

/** handler answers 501 until this endpoint's issue lands. */
export const handler = notImplemented(annotateFieldsRoute);

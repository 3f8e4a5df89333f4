import { SignetError } from "#domain/errors.ts";
import type { RouteContract } from "#http/contract.ts";
import { httpHandler } from "#http/pipeline.ts";

/** notImplemented answers 501 in the error layout for a route whose feature has not landed. */
export function notImplemented(contract: RouteContract) {
  return httpHandler(contract, async () => {
    throw new SignetError("NOT_IMPLEMENTED", `${contract.method} ${contract.path} is not available in this build yet.`);
  });
}

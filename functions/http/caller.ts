import { SignetError } from "#domain/shared/errors.ts";

/** Principal is the caller an API key identified (set by the authorizer). */
export interface Principal {
  keyId: string;
  email: string;
}

/** callerOf is the key the authorizer let through; a protected route reached without one answers 401. */
export function callerOf(principal: Principal | undefined): Principal {
  if (!principal) throw new SignetError("AUTHENTICATION_ERROR", "Send the header Authorization: Bearer sgn_... with your API key.");
  return principal;
}

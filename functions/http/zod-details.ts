import type * as z from "zod";
import type { ErrorDetail } from "#domain/shared/errors.ts";

/** zodDetails turns validation issues into error details with dotted member paths (`query.to`, `document.base64`). */
export function zodDetails(error: z.ZodError, prefix = ""): ErrorDetail[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    const field = [prefix, path].filter(Boolean).join(".") || prefix || "body";
    if (issue.code === "unrecognized_keys") {
      return { field, issue: `unknown member(s): ${issue.keys.join(", ")}` };
    }
    return { field, issue: issue.message };
  });
}

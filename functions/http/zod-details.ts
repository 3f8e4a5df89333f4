import type * as z from "zod";
import type { ErrorDetail } from "#domain/shared/errors.ts";

type Issue = z.core.$ZodIssue;

/**
 * unionBranch picks the issues of the union member the input was meant for: the one branch that
 * does not call a member unknown (a DOCX field item has no `name`, a PDF one no `id` or `type`),
 * else the first; its paths are made absolute. A caller then reads the same details as before the
 * union existed, not "Invalid input".
 */
function unionBranch(issue: Issue & { code: "invalid_union" }): Issue[] {
  const branches = issue.errors;
  const meant = branches.filter((branch) => !branch.some((inner) => inner.code === "unrecognized_keys" && inner.path.length === 0));
  const chosen = (meant.length === 1 ? meant[0] : branches[0]) ?? [];
  return chosen.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue);
}

function flatIssues(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => (issue.code === "invalid_union" && issue.errors.length > 0 ? flatIssues(unionBranch(issue)) : [issue]));
}

/** zodDetails turns validation issues into error details with dotted member paths (`query.to`, `document.base64`). */
export function zodDetails(error: z.ZodError, prefix = ""): ErrorDetail[] {
  return flatIssues(error.issues).map((issue) => {
    const path = issue.path.map(String).join(".");
    const field = [prefix, path].filter(Boolean).join(".") || prefix || "body";
    if (issue.code === "unrecognized_keys") {
      return { field, issue: `unknown member(s): ${issue.keys.join(", ")}` };
    }
    return { field, issue: issue.message };
  });
}

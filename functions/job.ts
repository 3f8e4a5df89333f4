import { callerOf } from "#http/caller.ts";
import { jobRoute } from "#http/contracts/jobs.ts";
import { type JobViewDeps, showJob } from "#http/job-view.ts";
import { json } from "#http/responses.ts";
import { config } from "#config";
import { httpHandler } from "#wiring/http.ts";
import { jobDepsOf } from "#wiring/jobs.ts";
import { SignetError } from "#domain/shared/errors.ts";

/** createJobHandler builds GET /v1/jobs/{id} on a job store (none: 503). */
export function createJobHandler(deps: JobViewDeps | undefined) {
  return httpHandler(jobRoute, async (req) => {
    if (!deps) throw new SignetError("SERVICE_UNAVAILABLE", "Jobs are not available on this server.");
    const { view, retryAfter } = await showJob(req.params.id!, callerOf(req.principal).keyId, deps);
    return json(200, view, { "Cache-Control": "no-store", ...(retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) }) });
  });
}

/** handler answers GET /v1/jobs/{id} from this container's job store. */
export const handler = createJobHandler(jobDepsOf(config));

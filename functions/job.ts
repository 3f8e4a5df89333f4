import { callerOf } from "#http/caller.ts";
import { jobRoute } from "#http/contracts/jobs.ts";
import { type JobViewDeps, showJob } from "#http/job-view.ts";
import { json } from "#http/responses.ts";
import { httpHandler } from "#wiring/http.ts";
import { jobDeps } from "#wiring/jobs.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { SignetError } from "#domain/shared/errors.ts";

/** makeJobHandler builds GET /v1/jobs/{id} on a container (its job store, unless deps are given; none: 503). */
export function makeJobHandler(container: Container, deps: JobViewDeps | undefined = jobDeps(container)) {
  return httpHandler(container, jobRoute, async (req) => {
    if (!deps) throw new SignetError("SERVICE_UNAVAILABLE", "Jobs are not available on this server.");
    const { view, retryAfter } = await showJob(req.params.id!, callerOf(req.principal).keyId, deps);
    return json(200, view, { "Cache-Control": "no-store", ...(retryAfter === undefined ? {} : { "Retry-After": String(retryAfter) }) });
  });
}

/** handler answers GET /v1/jobs/{id} with this process's container. */
export const handler = makeJobHandler(processContainer());

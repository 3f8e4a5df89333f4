import { callerOf } from "#http/caller.ts";
import { jobRedeliverRoute } from "#http/contracts/jobs.ts";
import { type JobViewDeps, ownJob } from "#http/job-view.ts";
import { json } from "#http/responses.ts";
import { httpHandler } from "#wiring/http.ts";
import { jobDeps } from "#wiring/jobs.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { SignetError } from "#domain/shared/errors.ts";

/** makeJobRedeliverHandler builds POST /v1/jobs/{id}/redeliver on a container (its job store and webhooks, unless deps are given; none: 503). */
export function makeJobRedeliverHandler(container: Container, deps: JobViewDeps | undefined = jobDeps(container)) {
  return httpHandler(container, jobRedeliverRoute, async (req) => {
    if (!deps) throw new SignetError("SERVICE_UNAVAILABLE", "Jobs are not available on this server.");
    const { keyId } = callerOf(req.principal);
    const job = await ownJob(req.params.id!, keyId, deps);
    if (!job.callbackUrl) throw new SignetError("NOT_FOUND", "This job has no callbackUrl, so there is no webhook to deliver again.");
    await deps.events.redeliver(job.id, keyId);
    return json(202, { id: job.id, message: "The webhook is being delivered again." }, { "Cache-Control": "no-store" });
  });
}

/** handler answers POST /v1/jobs/{id}/redeliver with this process's container. */
export const handler = makeJobRedeliverHandler(processContainer());

// Async jobs through the local server: submit with Prefer: respond-async, read the job until it ends.
import type { LocalApi } from "#test/helpers/local-api.ts";

/** JobView is the job resource as GET /v1/jobs/{id} answers it (functions/http/contracts/jobs.ts). */
export interface JobView {
  id: string;
  status: "queued" | "running" | "succeeded" | "failed" | "expired";
  route: string;
  result?: { statusCode: number; contentType: string; url?: string; body?: any; base64?: string };
  error?: { code: string; message: string; requestId: string };
  deliveries?: unknown[];
  [member: string]: unknown;
}

/** submitJob POSTs a JSON body with Prefer: respond-async; the answer's status, headers and JSON. */
export async function submitJob(api: LocalApi, path: string, body: unknown, key: string | undefined, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", prefer: "respond-async", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, any> };
}

/** readJob GETs a job with a key. */
export async function readJob(api: LocalApi, id: string, key: string): Promise<{ status: number; json: JobView; headers: Headers }> {
  const response = await fetch(`${api.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, json: (await response.json()) as JobView, headers: response.headers };
}

/** waitForJob reads the job every 50 ms until it is neither queued nor running (the test's own time-out bounds it). */
export async function waitForJob(
  api: LocalApi,
  id: string,
  key: string,
  until: (job: JobView) => boolean = (job) => job.status !== "queued" && job.status !== "running",
): Promise<JobView> {
  for (;;) {
    const { status, json } = await readJob(api, id, key);
    if (status !== 200) throw new Error(`GET /v1/jobs/${id} answered ${status}: ${JSON.stringify(json)}`);
    if (until(json)) return json;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

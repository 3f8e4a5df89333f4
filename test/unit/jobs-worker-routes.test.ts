import { describe, expect, it } from "vitest";
import { asyncHandlers } from "#functions/jobs-worker.ts";
import { routes } from "#http/routes.ts";

// On AWS a job runs in the worker function, through its table of handlers (functions/jobs-worker.ts):
// a route that takes Prefer: respond-async without its handler there would fail every job on AWS
// only (the local server runs jobs through its own route handlers).
describe("the job worker", () => {
  it("has the handler of every route that takes Prefer: respond-async, and no other", () => {
    const asyncRoutes = routes.filter((route) => route.async).map((route) => route.name);
    expect(Object.keys(asyncHandlers).sort()).toEqual(asyncRoutes.sort());
    for (const name of asyncRoutes) expect(typeof asyncHandlers[name], name).toBe("function");
  });
});

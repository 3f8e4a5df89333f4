import { SignetError } from "#domain/shared/errors.ts";
import { checkReadiness, type ReadinessCheck } from "#domain/shared/readiness.ts";
import { healthRoute } from "#http/contracts/meta.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { libreOfficeReady } from "#wiring/conversion.ts";
import { httpHandler } from "#wiring/http.ts";

/** makeHealthHandler builds GET /v1/health on a container: 200 with every part up, 503 SERVICE_UNAVAILABLE naming each part that is down. */
export function makeHealthHandler(container: Container) {
  const { config } = container;
  // The parts this process needs, each checked cheaply (no conversion is started). On AWS,
  // LibreOffice lives in the conversion functions' image, not in this one, so it is not checked here.
  const checks: Record<string, ReadinessCheck> = config.runtime === "local" ? { libreoffice: () => libreOfficeReady(config) } : {};
  return httpHandler(container, healthRoute, async () => {
    const report = await checkReadiness(checks);
    if (report.down.length > 0) {
      throw new SignetError("SERVICE_UNAVAILABLE", `Not ready: ${report.down.join(", ")} is down; see details.`, {
        details: report.down.map((name) => ({ field: name, issue: report.checks[name]?.message ?? "down" })),
      });
    }
    const body = { status: "healthy", timestamp: new Date().toISOString(), version: config.version, checks: report.checks };
    return json(200, body, { "Cache-Control": "no-store" });
  });
}

/** handler answers GET /v1/health with this process's container. */
export const handler = makeHealthHandler(processContainer());

import { config } from "#config";
import { SignetError } from "#domain/shared/errors.ts";
import { checkReadiness, type ReadinessCheck } from "#domain/shared/readiness.ts";
import { healthRoute } from "#http/contracts/meta.ts";
import { libreOfficeReady } from "#wiring/conversion.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";

// The parts this process needs, each checked cheaply (no conversion is started). On AWS,
// LibreOffice lives in the conversion functions' image, not in this one, so it is not checked here.
const checks: Record<string, ReadinessCheck> = config.runtime === "local" ? { libreoffice: libreOfficeReady } : {};

/** handler answers GET /v1/health: 200 with every part up, 503 SERVICE_UNAVAILABLE naming each part that is down. */
export const handler = httpHandler(healthRoute, async () => {
  const report = await checkReadiness(checks);
  if (report.down.length > 0) {
    throw new SignetError("SERVICE_UNAVAILABLE", `Not ready: ${report.down.join(", ")} is down; see details.`, {
      details: report.down.map((name) => ({ field: name, issue: report.checks[name]?.message ?? "down" })),
    });
  }
  return json(200, { status: "healthy", timestamp: new Date().toISOString(), version: config.version, checks: report.checks }, { "Cache-Control": "no-store" });
});

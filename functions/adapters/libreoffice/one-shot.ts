import { pathToFileURL } from "node:url";
import { conversionFailed, conversionTimeout, notStarted, unreadable } from "#adapters/libreoffice/errors.ts";
import { filtersOf, readOutput, type JobFiles } from "#adapters/libreoffice/job-files.ts";
import type { Confinement } from "#adapters/libreoffice/isolation.ts";
import { runGroup, type GroupResult, type ParentGuard } from "#adapters/libreoffice/process-group.ts";
import { targetMediaTypes } from "#domain/documents/formats.ts";

/** SOFFICE_FLAGS start LibreOffice with no window, no start centre, no recovery and no lock files. */
export const SOFFICE_FLAGS = ["--headless", "--invisible", "--nologo", "--nodefault", "--norestore", "--nolockcheck", "--nofirststartwizard"];

/** OneShotRun is what one `soffice --convert-to` needs: the program, its profile folder and environment. */
export interface OneShotRun {
  soffice: string;
  /** The profile folder (host path). */
  profile: string;
  env: Record<string, string>;
  cwd: string;
  /** The converter's time limit, for the message of a time-out. */
  timeoutMs: number;
  /** Runs soffice under the parent guard when a python is at hand. */
  guard?: ParentGuard;
  /** The sandbox (or network namespace) and memory limit soffice runs under, with the paths it sees. */
  confinement: Confinement;
}

/**
 * runOneShot converts one job with a fresh `soffice --convert-to` in its own process group, killed
 * whole at the deadline. Time-out: CONVERSION_TIMEOUT; no output and an error status or a signal:
 * CONVERSION_FAILED; no valid output after a clean exit: INVALID_DOCUMENT; no start: SERVICE_UNAVAILABLE.
 */
export async function runOneShot(run: OneShotRun, job: JobFiles, deadline: number): Promise<Buffer> {
  const filters = filtersOf(job);
  // soffice takes export options as typed JSON after the filter name.
  const typed = Object.entries(filters.filterData ?? {}).map(([name, value]) => [
    name,
    { type: typeof value === "number" ? "long" : "string", value: String(value) },
  ]);
  const filterData = typed.length > 0 ? `:${JSON.stringify(Object.fromEntries(typed))}` : "";
  const target = `${targetMediaTypes[job.to].extension}:${filters.outFilter}${filterData}`;
  const inside = run.confinement.inside;
  const args = [
    `-env:UserInstallation=${pathToFileURL(inside(run.profile)).href}`,
    ...SOFFICE_FLAGS,
    `--infilter=${filters.inFilter}${filters.inFilterOptions ? `:${filters.inFilterOptions}` : ""}`,
    "--convert-to",
    target,
    "--outdir",
    inside(job.outDir),
    inside(job.inputPath),
  ];
  let result: GroupResult;
  try {
    const [command, confined] = run.confinement.command(run.soffice, args);
    result = await runGroup(command, confined, {
      env: run.env,
      cwd: run.cwd,
      timeoutMs: Math.max(1, deadline - Date.now()),
      ...(run.guard ? { guard: run.guard } : {}),
    });
  } catch (error) {
    throw notStarted(error);
  }
  if (result.timedOut) throw conversionTimeout(run.timeoutMs);
  const output = await readOutput(job);
  if (output) return output;
  if (result.code !== 0) throw conversionFailed(result);
  throw unreadable(job.from);
}

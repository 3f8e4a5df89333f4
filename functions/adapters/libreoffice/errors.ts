import type { SourceFormat } from "#domain/documents/formats.ts";
import { SignetError } from "#domain/shared/errors.ts";

// How a LibreOffice run can end badly, as the named errors callers see (functions/http/error-table.ts
// maps the codes to statuses). Exit codes, signals and stderr go into `cause`, for the log only.

/** conversionTimeout: the run was killed at the time limit (504 CONVERSION_TIMEOUT). */
export function conversionTimeout(timeoutMs: number): SignetError {
  return new SignetError(
    "CONVERSION_TIMEOUT",
    `The conversion did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped; simplify or split the document and try again.`,
  );
}

/** unreadable: LibreOffice ran to the end but produced no valid output (422 INVALID_DOCUMENT). */
export function unreadable(from: SourceFormat): SignetError {
  return new SignetError(
    "INVALID_DOCUMENT",
    `LibreOffice could not read the file as ${from}; check that it opens in a word processor and that from= names its format.`,
  );
}

/** ExitDetails is how a LibreOffice process ended, for the log. */
export interface ExitDetails {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * conversionFailed: LibreOffice crashed or ended with an error status on this document, also on the
 * fresh one-shot retry (500 CONVERSION_FAILED). The exit status and stderr stay in the log.
 */
export function conversionFailed(exit: ExitDetails): SignetError {
  const how = exit.signal ? `signal ${exit.signal}` : `status ${exit.code}`;
  return new SignetError(
    "CONVERSION_FAILED",
    "LibreOffice stopped with an error while converting this document. Open and save it again in a word processor, or remove unusual content, and retry.",
    { cause: new Error(`LibreOffice ended with ${how}: ${exit.stderr.trim().slice(-500)}`) },
  );
}

/** notStarted: LibreOffice is installed but could not be started (503 SERVICE_UNAVAILABLE). */
export function notStarted(cause: unknown): SignetError {
  return new SignetError("SERVICE_UNAVAILABLE", "Document conversion is not available right now: LibreOffice could not be started.", { cause });
}

/** notInstalled: there is no LibreOffice on the server (503 SERVICE_UNAVAILABLE). */
export function notInstalled(): SignetError {
  return new SignetError(
    "SERVICE_UNAVAILABLE",
    "Document conversion is not available: LibreOffice is not installed on the server.",
    // For the operator, in the log (the 503 is logged with its cause).
    { cause: new Error("soffice not found: install libreoffice-writer, or set SIGNET_SOFFICE to its soffice binary") },
  );
}

/** IsolationUnavailableError is the cause of notIsolated: the sandbox SIGNET_LIBREOFFICE_ISOLATION=required asks for cannot be made here. */
export class IsolationUnavailableError extends Error {
  override readonly name = "IsolationUnavailableError";
}

/** notIsolated: SIGNET_LIBREOFFICE_ISOLATION=required and no bubblewrap sandbox is possible here (503 SERVICE_UNAVAILABLE; the local server does not start). */
export function notIsolated(summary: string): SignetError {
  return new SignetError("SERVICE_UNAVAILABLE", "Document conversion is not available: LibreOffice cannot be isolated on this server.", {
    cause: new IsolationUnavailableError(
      `SIGNET_LIBREOFFICE_ISOLATION=required, but no bubblewrap sandbox works here (${summary}): install bubblewrap (apt-get install bubblewrap) and allow it namespaces (root, or unprivileged user namespaces), or set SIGNET_LIBREOFFICE_ISOLATION=auto`,
    ),
  });
}

/** shuttingDown: the converter closed while the job waited for a slot (503 SERVICE_UNAVAILABLE). */
export function shuttingDown(): SignetError {
  return new SignetError("SERVICE_UNAVAILABLE", "The converter is shutting down; retry in a moment.", { retryAfterSeconds: 5 });
}

/** busy: every slot is taken and the queue is full (429 RATE_LIMIT_ERROR with Retry-After). */
export function busy(running: number, waiting: number, retryAfterSeconds: number): SignetError {
  return new SignetError("RATE_LIMIT_ERROR", `The converter is busy (${running} conversions running, ${waiting} waiting); retry in ${retryAfterSeconds} s.`, {
    retryAfterSeconds,
  });
}

// The converter's decisions, pure: facts in, decision out. Which way a job is tried first (warm,
// handed over to the warm instance, one-shot), what follows when an attempt fails, what the slot
// does after the job, and whether LibreOffice may start at all given its isolation. The
// supervisor (supervisor.ts) gathers the facts, asks, and carries the decision out.

/** AttemptFacts are what the next attempt at a job depends on. */
export interface AttemptFacts {
  /** The warm path can run here (a python with uno and the driver, mode "warm") and was not given up. */
  warm: boolean;
  /** The document is known to crash a load over UNO: it crashed a warm instance before (by SHA-256), or its format and parts say so. */
  knownCrasher: boolean;
  /** Milliseconds left before the job's deadline. */
  budgetLeftMs: number;
  /** How the previous attempt at this job ended, when there was one (it gave no document). */
  previous?: AttemptFailure | undefined;
}

/**
 * AttemptFailure is how an attempt ended without a document:
 * - warm-crashed: the warm LibreOffice died or failed the export (it was stopped);
 * - warm-unavailable: the slot's warm LibreOffice did not start (not a time-out);
 * - warm-timeout: the warm LibreOffice was killed at the deadline, or did not start before it;
 * - warm-unreadable: it could not load the document, or wrote no output;
 * - handover-no-warm: the warm instance the job was to be handed to did not start;
 * - handover-failed: handing the job over failed (not by time-out);
 * - handover-timeout: the hand-over ran into the deadline.
 */
export type AttemptFailure =
  | "warm-crashed"
  | "warm-unavailable"
  | "warm-timeout"
  | "warm-unreadable"
  | "handover-no-warm"
  | "handover-failed"
  | "handover-timeout";

/** Attempt is the plan's answer: the next thing to try, or the error to end the job with. */
export type Attempt =
  /** Convert on the slot's warm LibreOffice over UNO. */
  | { kind: "warm" }
  /** Hand the job over to the slot's running warm instance: a `--convert-to` client on the warm profile. */
  | { kind: "hand-over" }
  /**
   * Convert with `soffice --convert-to`. On the "warm" profile (initialised, so it starts fast) the
   * slot's warm instance is stopped first and restarted after the answer (`restartWarm`);
   * `freshOutput`: the attempt before may have left a partial output, write into a new folder.
   */
  | { kind: "one-shot"; profile: "warm" | "oneshot"; freshOutput: boolean; restartWarm: boolean }
  | { kind: "fail"; error: "timeout" | "unreadable" };

const oneShot = (profile: "warm" | "oneshot", freshOutput: boolean): Attempt => ({ kind: "one-shot", profile, freshOutput, restartWarm: profile === "warm" });

/**
 * planAttempt decides the next attempt at a job. First: one-shot when the warm path is not there,
 * a hand-over for a document known to crash a UNO load, else warm. A warm crash is retried once
 * one-shot on the warm profile (which survives documents the warm instance does not); a warm
 * instance that does not start, one-shot on the job's own profile; a failed hand-over, one-shot on
 * the warm profile. Time-outs and unreadable documents end the job, and so does a retry with no
 * budget left (it could only time out).
 */
export function planAttempt(facts: AttemptFacts): Attempt {
  const { previous } = facts;
  if (previous === "warm-timeout" || previous === "handover-timeout") return { kind: "fail", error: "timeout" };
  if (previous === "warm-unreadable") return { kind: "fail", error: "unreadable" };
  if (facts.budgetLeftMs <= 0) return { kind: "fail", error: "timeout" };
  switch (previous) {
    case "warm-crashed":
      return oneShot("warm", true);
    case "warm-unavailable":
      return oneShot("oneshot", true);
    case "handover-failed":
      return oneShot("warm", true);
    case "handover-no-warm":
      return oneShot("warm", false);
    default:
      if (!facts.warm) return oneShot("oneshot", false);
      return facts.knownCrasher ? { kind: "hand-over" } : { kind: "warm" };
  }
}

/** AfterJobFacts are what the slot does after a job depends on. */
export interface AfterJobFacts {
  /** SIGNET_LIBREOFFICE_RECYCLE: nothing of a job may outlive it. */
  recycle: boolean;
  /** The job ended with a document. */
  succeeded: boolean;
  /** The job stopped the slot's warm instance (Attempt.restartWarm of its last attempt). */
  warmStopped: boolean;
  /** The warm path is still in use. */
  warm: boolean;
}

/** AfterJob is what the slot does once a job is over: end its LibreOffice and files (before the next job), or start the warm instance again now. */
export interface AfterJob {
  recycle: boolean;
  restartWarm: boolean;
}

/**
 * planAfterJob: recycling ends everything of the job, whatever its outcome (the next job starts
 * its own LibreOffice); otherwise a warm instance stopped for a successful job comes back now
 * rather than in the next request. After a failed job the next one starts it on demand.
 */
export function planAfterJob(facts: AfterJobFacts): AfterJob {
  return { recycle: facts.recycle, restartWarm: !facts.recycle && facts.succeeded && facts.warmStopped && facts.warm };
}

/** IsolationFacts are the isolation setting and what the system offers for keeping LibreOffice's files apart. */
export interface IsolationFacts {
  mode: "auto" | "off" | "none" | "required";
  /** "bwrap": the sandbox works here; "none": LibreOffice would see every file this process can read. */
  files: "bwrap" | "none";
}

/** planStart says whether LibreOffice may start: "refuse" when the sandbox is required and missing, "warn" when it runs without one. */
export function planStart(facts: IsolationFacts): "start" | "warn" | "refuse" {
  if (facts.files === "bwrap") return "start";
  return facts.mode === "required" ? "refuse" : "warn";
}

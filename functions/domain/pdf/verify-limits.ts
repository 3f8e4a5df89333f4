import { SignetError } from "#domain/shared/errors.ts";

/**
 * VerifyLimits bound the work /v1/verify (which needs no key) spends on one file: every loop of the
 * revision reader and the difference analysis is bounded by the bytes present and by these caps.
 */
export interface VerifyLimits {
  /** Incremental updates (revisions) a file may have; a real document has a handful, an LTA one tens. */
  maxRevisions: number;
  /** Objects one cross-reference section may define. */
  maxObjectsPerRevision: number;
  /** Bytes the cross-reference and object streams of one file may inflate to, together. */
  maxInflatedBytes: number;
  /** Wall-clock time for reading the revisions and analysing the changes after each signature. */
  timeBudgetMs: number;
}

/** DEFAULT_VERIFY_LIMITS are the caps unless the wiring passes others (docs/reliability.md). */
export const DEFAULT_VERIFY_LIMITS: VerifyLimits = {
  maxRevisions: 1_000,
  maxObjectsPerRevision: 500_000,
  maxInflatedBytes: 64 * 1024 * 1024,
  timeBudgetMs: 4_000,
};

/** verifyLimitError is the 422 a file over one of the caps gets, naming the cap. */
export function verifyLimitError(what: string, issue: string): SignetError {
  return new SignetError("INVALID_DOCUMENT", `The PDF ${what}; Signet verifies documents with ${issue}.`, {
    details: [{ field: "document", issue }],
  });
}

/** VerifyBudget is what one verification may spend: time (check() throws the 422 once it is spent) and inflated bytes. */
export class VerifyBudget {
  private readonly deadline: number;
  private calls = 0;
  /** Bytes inflated so far (cross-reference and object streams). */
  inflatedBytes = 0;

  constructor(
    private readonly limitMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.deadline = now() + limitMs;
  }

  /** check is cheap enough for inner loops: it reads the clock every 256 calls. */
  check(): void {
    if ((++this.calls & 0xff) !== 0) return;
    this.checkNow();
  }

  /** checkNow reads the clock. */
  checkNow(): void {
    if (this.now() > this.deadline) {
      throw verifyLimitError(
        `took longer than ${this.limitMs / 1000} s to analyse`,
        `a structure Signet can analyse within ${this.limitMs / 1000} s (fewer revisions or objects)`,
      );
    }
  }
}

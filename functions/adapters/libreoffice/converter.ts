// The LibreOffice converter behind the Converter port: discovery.ts finds LibreOffice and its
// isolation, plan.ts decides each attempt (warm, hand-over, one-shot), supervisor.ts runs the slots
// and their processes. Its options come whole from functions/config.ts through the wiring.
import type { Isolation } from "#adapters/libreoffice/isolation.ts";
import { OfficeSupervisor, type ConverterState, type LibreOfficeConverterOptions } from "#adapters/libreoffice/supervisor.ts";
import type { Converter } from "#domain/conversion/converter.ts";

export type { LibreOfficeConverterOptions } from "#adapters/libreoffice/supervisor.ts";

/** LibreOfficeConverter is the Converter port plus the lifecycle the process owner needs. */
export interface LibreOfficeConverter extends Converter {
  /** warm locates LibreOffice and starts every warm instance now rather than on first use. */
  warm(): Promise<void>;
  /**
   * startEarly starts one warm instance (then the others) without a warm-up conversion, and
   * resolves when it is ready or after maxWaitMs, whichever comes first; it never rejects (a
   * failure is logged and the first conversion tries again). For a Lambda's init phase.
   */
  startEarly(maxWaitMs: number): Promise<void>;
  /** close waits for running conversions, stops every LibreOffice and removes the work folder. */
  close(): Promise<void>;
  /** state reports the effective mode and the load, for logs and tests. */
  state(): ConverterState;
  /** isolation reports what keeps LibreOffice off the network here (known once LibreOffice was located). */
  isolation(): Isolation | undefined;
  /** stopNow kills every LibreOffice at once, without waiting (for the process's exit hook). */
  stopNow(): void;
}

/**
 * createLibreOfficeConverter returns the LibreOffice converter (an OfficeSupervisor behind the
 * port): created idle, LibreOffice is located and started on first use (or on warm()). It has no
 * defaults of its own: every setting comes from functions/config.ts (the wiring passes them all).
 */
export function createLibreOfficeConverter(options: LibreOfficeConverterOptions): LibreOfficeConverter {
  const office = new OfficeSupervisor(options);
  // Plain functions, not the class's methods: callers may wrap the port (withOfficeInputChecks
  // delegates through its prototype), which private fields would not survive.
  return {
    convert: (request) => office.convert(request),
    warm: () => office.warm(),
    startEarly: (maxWaitMs) => office.startEarly(maxWaitMs),
    close: () => office.close(),
    stopNow: () => office.stopNow(),
    state: () => office.state(),
    isolation: () => office.isolation(),
  };
}

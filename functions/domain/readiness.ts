/** Readiness is the state of one part the service needs, as the health probe reports it. */
export interface Readiness {
  status: "up" | "down";
  /** message says what is wrong and how to fix it, when down. */
  message?: string;
}

/** ReadinessCheck reports one part's readiness; it must answer fast (no conversion, no network). */
export type ReadinessCheck = () => Promise<Readiness>;

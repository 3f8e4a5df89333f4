/** Readiness is the state of one part the service needs, as the health probe reports it. */
export interface Readiness {
  status: "up" | "down";
  /** message says what is wrong and how to fix it, when down. */
  message?: string;
}

/** ReadinessCheck reports one part's readiness; it must answer fast (no conversion, no network). */
export type ReadinessCheck = () => Promise<Readiness>;

/** ReadinessReport is every checked part by name, and the ones that are down. */
export interface ReadinessReport {
  checks: Record<string, Readiness>;
  down: string[];
}

/** checkReadiness runs every check at once; a check that throws counts as down with its message. */
export async function checkReadiness(checks: Record<string, ReadinessCheck>): Promise<ReadinessReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, Readiness]> => {
      try {
        return [name, await check()];
      } catch (error) {
        return [name, { status: "down", message: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  return { checks: Object.fromEntries(entries), down: entries.filter(([, readiness]) => readiness.status === "down").map(([name]) => name) };
}

import type { WebhookDeliveries } from "#domain/webhooks/webhook-deliveries.ts";

/**
 * WebhookSweeper is the local server's in-process timer for webhook retries: every `intervalMs`
 * it makes the attempts that are due (in the key table, so pending deliveries resume after a
 * restart). On AWS the webhook-sweeper function does the same once a minute.
 */
export class WebhookSweeper {
  readonly #events: Pick<WebhookDeliveries, "sweep">;
  readonly #intervalMs: number;
  readonly #warn: (message: string, data: Record<string, unknown>) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(events: Pick<WebhookDeliveries, "sweep">, options: { intervalMs: number; warn: (message: string, data: Record<string, unknown>) => void }) {
    this.#events = events;
    this.#intervalMs = options.intervalMs;
    this.#warn = options.warn;
  }

  /** start sweeps now and then every interval (the next sweep is timed from the end of the last). */
  start(): void {
    this.#stopped = false;
    this.#tick();
  }

  #tick(): void {
    this.#running = this.#sweepAll()
      .catch((error: unknown) => this.#warn("webhook sweep failed; the next one retries", { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(() => this.#tick(), this.#intervalMs).unref();
      });
  }

  /** sweepAll sweeps until nothing due is left (a backlog after a restart is not spread over many intervals). */
  async #sweepAll(): Promise<void> {
    while (!this.#stopped && (await this.#events.sweep()) > 0) {
      // keep going: more may be due
    }
  }

  /** stop ends the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}

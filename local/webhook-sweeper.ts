import type { WebhookDeliveries } from "#domain/webhooks/webhook-deliveries.ts";

/**
 * WebhookSweeper is the local server's in-process timer for webhook retries: every `intervalMs`
 * it makes the attempts that are due (in the key table, so pending deliveries resume after a
 * restart), and at once when a delivery is queued (wake). On AWS the webhook-sweeper function does
 * the same once a minute.
 */
export class WebhookSweeper {
  readonly #events: Pick<WebhookDeliveries, "sweep">;
  readonly #intervalMs: number;
  readonly #warn: (message: string, data: Record<string, unknown>) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #sweeping = false;
  #again = false;
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

  /** wake sweeps now (a delivery was queued); during a sweep, once more right after it. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#sweeping) this.#again = true;
    else {
      clearTimeout(this.#timer);
      this.#tick();
    }
  }

  #tick(): void {
    this.#sweeping = true;
    this.#again = false;
    this.#running = this.#sweepAll()
      .catch((error: unknown) => this.#warn("webhook sweep failed; the next one retries", { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        this.#sweeping = false;
        if (!this.#stopped) this.#timer = setTimeout(() => this.#tick(), this.#again ? 0 : this.#intervalMs).unref();
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

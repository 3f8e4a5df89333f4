/**
 * The container: every per-process instance of Signet (stores, mailer, fetchers, converter,
 * signing identity, idempotency store, uploads, pictures), each built on first use from the one
 * Config it is given, so a process (a Lambda, the local server) or a test holds as many
 * configurations as it builds containers, without editing process.env or re-importing modules.
 * The wiring files (conversion, fetch, keys, signing, ...) say how each part is built from a
 * container, and ask for it here with that builder: this file holds them, once each per container,
 * and imports none of them, so a function's bundle holds only the wiring it uses.
 */
import { lazyConfig, type Config } from "#config";
import { useLogLevel } from "#adapters/powertools-logger.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import type { IdempotencyStore } from "#domain/shared/idempotency.ts";
import type { UploadStore } from "#domain/shared/upload.ts";
import type { KeyStore } from "#domain/keys/key-store.ts";
import type { Mailer } from "#domain/keys/mailer.ts";
import type { PictureConverters } from "#domain/pictures/picture-formats.ts";
import type { OfficeConverter } from "#wiring/conversion.ts";
import type { SigningWiring } from "#wiring/signing.ts";
import type { WebhookDeliveries } from "#domain/webhooks/webhook-deliveries.ts";
import type { JobDeps } from "#http/jobs.ts";
import type { StoreQueue } from "#domain/jobs/job.ts";
import type { WebhookSender } from "#domain/webhooks/webhook-sender.ts";

/** Parts are the instances a container builds on first use; a test may hand in any of them (overrides). */
export interface Parts {
  converter: OfficeConverter;
  safeFetcher: Fetcher;
  revocationFetcher: Fetcher;
  keyStore: KeyStore;
  mailer: Mailer;
  uploadStore: UploadStore;
  /** Undefined locally without a key-table endpoint: an Idempotency-Key is then refused 503. */
  idempotencyStore: IdempotencyStore | undefined;
  pictures: PictureConverters;
  signing: SigningWiring;
  webhookEvents: WebhookDeliveries;
  /** Undefined where there is no job store: Prefer: respond-async is then not applied. */
  jobDeps: JobDeps | undefined;
  /** The local queue (no SQS): wakes the in-process job pool. */
  storeQueue: StoreQueue;
  /** What POSTs webhooks (the safe fetcher's sender); a test hands in one that may reach its receiver on loopback. */
  webhookSender: WebhookSender;
  /** The submit-time check of a job's callbackUrl (HTTPS, public addresses); a test may allow its loopback receiver. */
  callbackCheck: (url: string, field?: string) => Promise<void>;
}

/** Container holds one configuration and the instances built from it, each made once, on first use. */
export class Container {
  /** config is the configuration every part of this container is built from. */
  readonly config: Config;
  readonly #parts: Partial<Parts>;
  #localServerUrl: string | undefined;

  constructor(config: Config, overrides: Partial<Parts> = {}) {
    this.config = config;
    this.#parts = { ...overrides };
  }

  /** part is the named instance: the override given, else built by `build` on first use and kept. */
  part<K extends keyof Parts>(name: K, build: (container: Container) => Parts[K]): Parts[K] {
    if (!(name in this.#parts)) this.#parts[name] = build(this);
    return this.#parts[name] as Parts[K];
  }

  /**
   * useLocalServerUrl tells where the local server listens (local/server.ts calls it once it
   * listens; the port may have been chosen at start): links in mails and the local CRL URL follow it.
   */
  useLocalServerUrl(url: string): void {
    this.#localServerUrl = url.replace(/\/+$/, "");
  }

  /** localServerUrl is where this container's local server listens; undefined before it does (and on AWS). */
  localServerUrl(): string | undefined {
    return this.#localServerUrl;
  }
}

/**
 * createContainer builds a container on a configuration; nothing is made until first used but the
 * log level, which is the process's (one logger): the last container made sets it.
 */
export function createContainer(config: Config, overrides: Partial<Parts> = {}): Container {
  useLogLevel(config.logLevel);
  return new Container(config, overrides);
}

// The one process-wide container, for the entry files: a Lambda serves one function per process.
const processWide: { container?: Container } = {};

/**
 * processContainer is this process's container, made on first call from process.env (each group
 * of settings read on first use, so a function that never reads `keys` needs no SIGNET_TABLE).
 * Only the entry files (functions/*.ts) call it; the local server and the tests build their own.
 */
export function processContainer(): Container {
  processWide.container ??= createContainer(lazyConfig(process.env));
  return processWide.container;
}

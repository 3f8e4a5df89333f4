import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import sesModule from "aws-ses-v2-local";
import { PRIVATE_FOLDER, privateDataFolder } from "#local/data-folder.ts";
import { guardStandIn } from "#local/host-guard.ts";
import { portInUse } from "#local/startup-errors.ts";
import { startS3StandIn } from "#local/s3-stand-in.ts";
import { startLocalKms, type LocalKms } from "#local/local-kms.ts";
import { settings, type Env } from "#config";

/** StandIns are the embedded replacements of the AWS services, on loopback. */
export interface StandIns {
  dynamodbEndpoint: string;
  sesEndpoint: string;
  /** The S3 stand-in (uploads bucket). */
  s3Endpoint: string;
  /** The KMS stand-in, when SIGNET_KMS_KEY_ID is `local`. */
  kms?: LocalKms | undefined;
  /** Environment variables that point the adapters at the stand-ins. */
  env: Record<string, string>;
  close(): Promise<void>;
  /**
   * Why the DynamoDB stand-in failed, if it did: its thread's error, waiting up to waitMs for a
   * thread that is stopping (its closed sockets can reach a caller before its error does).
   */
  dynamoFailure(waitMs: number): Promise<Error | undefined>;
}

/** StandInOptions choose where data lives and which ports are used (0 picks a free one). */
export interface StandInOptions {
  /** Folder for dynalite's files; omit for an in-memory store (tests). */
  dataDir?: string;
  sesPort?: number;
  /** Port of the S3 stand-in (SIGNET_S3_PORT in local/main.ts); 0 picks a free one. */
  s3Port?: number;
  /** The settings the stand-ins follow (SIGNET_UPLOADS_BUCKET, SIGNET_KMS_KEY_ID=local, AWS_REGION, AWS credentials); default process.env. */
  env?: Env;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

/** DynamoThread is the DynamoDB stand-in running in its own thread (local/dynamo-worker.ts). */
interface DynamoThread {
  port: number;
  close(): Promise<void>;
  /** The thread's failure, waiting up to waitMs for a thread that is stopping to report it. */
  failure(waitMs: number): Promise<Error | undefined>;
}

const LOADER_FLAGS = new Set(["--import", "--require", "-r", "--loader", "--experimental-loader", "--conditions", "-C"]);

/**
 * loaderArgs are this process's module-loader flags, for the worker to run TypeScript the same way
 * (tsx, also under vitest). Other flags are left out: a worker refuses many (--expose-gc, ...).
 */
function loaderArgs(): string[] {
  const args: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (LOADER_FLAGS.has(flag) && i + 1 < argv.length) args.push(flag, argv[++i]!);
    else if (LOADER_FLAGS.has(flag.split("=")[0]!)) args.push(flag);
  }
  return args.some((arg) => arg.includes("tsx")) ? args : [...args, "--import", "tsx"];
}

/**
 * typeScriptWorker starts a worker on a .ts module: a small bootstrap registers tsx's loader in the
 * worker itself before importing it. Node 20's `--import tsx` in a worker's execArgv does not (the
 * worker then fails on the .ts extension), and hooks are not inherited from the parent before Node 22.
 */
export function typeScriptWorker(module: URL, options: WorkerOptions): Worker {
  // The ESM entry (the CommonJS one resolves its loader by a relative path that breaks here).
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const code = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(module.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { execArgv: loaderArgs(), ...options });
}

function startDynamoThread(path: string | undefined): Promise<DynamoThread> {
  const worker = typeScriptWorker(new URL("./dynamo-worker.ts", import.meta.url), { workerData: { path } });
  let exited = false;
  let closing: Promise<void> | undefined;
  const gone = new Promise<void>((done) =>
    worker.once("exit", () => {
      exited = true;
      done();
    }),
  );
  return new Promise((resolve, reject) => {
    // A failure of the stand-in is this process's uncaught exception, as when dynalite ran on the
    // main thread: the local server's start-up and process guards report it (dynalite's database
    // locked by another process, say). Before the port is known it fails the start instead.
    let started = false;
    let failed: Error | undefined;
    const fail = (error: Error) => {
      failed ??= error;
      if (!started) return reject(error);
      if (!closing)
        setImmediate(() => {
          throw error;
        });
    };
    worker.on("error", fail);
    void gone.then(() => reject(new Error("the DynamoDB stand-in's thread stopped before listening")));
    worker.on("message", (message: { port?: number; fatal?: { name: string; message: string } }) => {
      if (message.fatal) return fail(Object.assign(new Error(message.fatal.message), { name: message.fatal.name }));
      if (message.port === undefined || started) return;
      started = true;
      resolve({
        port: message.port,
        failure: async (waitMs) => {
          if (!failed && !exited) await Promise.race([gone, new Promise((done) => setTimeout(done, waitMs).unref())]);
          return failed;
        },
        close: () =>
          (closing ??= exited
            ? Promise.resolve()
            : new Promise<void>((done) => {
                void gone.then(done);
                worker.once("message", () => void worker.terminate());
                worker.postMessage("close");
              })),
      });
    });
  });
}

/**
 * startStandIns starts dynalite (persisted under dataDir/dynamodb when a folder is given) behind
 * a shim that adds TransactWriteItems (local/dynalite-transactions.ts), both in a thread of their
 * own, and the local SES v2 endpoint, all bound to 127.0.0.1 only. The adapters talk to the shim,
 * never to dynalite directly.
 */
export async function startStandIns(options: StandInOptions = {}): Promise<StandIns> {
  let path: string | undefined;
  if (options.dataDir) {
    privateDataFolder(options.dataDir);
    path = join(options.dataDir, "dynamodb");
    mkdirSync(path, { recursive: true, mode: PRIVATE_FOLDER });
  }
  const dynamo = await startDynamoThread(path);
  const dynamoPort = dynamo.port;

  // aws-ses-v2-local is CommonJS: its ESM import is the module object with the server as .default.
  const imported = sesModule as unknown as { default?: unknown };
  const startSes = (imported.default ?? imported) as (config: { host: string; port: number }) => Promise<Server>;
  const ses = await startSes({ host: "127.0.0.1", port: options.sesPort ?? 8005 });
  // Express resolves even when listen failed (the port is taken): the server then has no address.
  const sesAddress = ses.address() as AddressInfo | null;
  if (!sesAddress) {
    await dynamo.close();
    throw portInUse("the mail stand-in (local SES)", "127.0.0.1", options.sesPort ?? 8005, "SIGNET_SES_PORT");
  }
  const sesPort = sesAddress.port;
  // Its /store holds every code and revocation link: loopback names and its own origin only.
  guardStandIn(ses, "mail (local SES)");

  // --- S3 stand-in: uploads, persisted under dataDir/s3 when a folder is given ---
  // The S3 stand-in checks every signature against this secret: a fresh random one per start
  // unless AWS_SECRET_ACCESS_KEY is set, so another loopback process cannot sign with a known default.
  const env = options.env ?? process.env;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY ?? randomBytes(32).toString("base64url");
  const accessKeyId = env.AWS_ACCESS_KEY_ID ?? "local";
  // The bucket the local configuration names (its default is the settings table's).
  const uploadsBucket = settings.uploads.bucket.read(env, "local")!;
  const s3 = await startS3StandIn({
    ...(options.dataDir ? { dataDir: join(options.dataDir, "s3") } : {}),
    port: options.s3Port ?? 0,
    buckets: [uploadsBucket],
    secretAccessKey,
    accessKeyId,
  });
  // --- end S3 stand-in ---

  // --- KMS stand-in: only when asked for; keys under dataDir/kms ---
  const kms =
    settings.identity.kmsKeyId.read(env, "local") === "local" ? await startLocalKms(options.dataDir ? join(options.dataDir, "kms") : undefined) : undefined;

  const dynamodbEndpoint = `http://127.0.0.1:${dynamoPort}`;
  const sesEndpoint = `http://127.0.0.1:${sesPort}`;
  return {
    dynamodbEndpoint,
    sesEndpoint,
    s3Endpoint: s3.endpoint,
    kms,
    env: {
      SIGNET_S3_ENDPOINT: s3.endpoint,
      SIGNET_UPLOADS_BUCKET: uploadsBucket,
      SIGNET_DYNAMODB_ENDPOINT: dynamodbEndpoint,
      SIGNET_SES_ENDPOINT: sesEndpoint,
      ...kms?.env,
      // The SDK insists on credentials and signs requests; the S3 stand-in checks them, the others accept any.
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: settings.process.region.read(env, "local"),
    },
    close: async () => {
      await Promise.all([dynamo.close(), close(ses), s3.close(), kms?.close()]);
    },
    dynamoFailure: (waitMs) => dynamo.failure(waitMs),
  };
}

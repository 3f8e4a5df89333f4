// The local server: embedded stand-ins for the AWS parts, then every handler on one port.
// A start-up failure is one line on stderr naming the cause and the setting to change, exit code 1.
import { resolve } from "node:path";
import { loadConfig, settings } from "#config";
import { privateDataFolder } from "#local/data-folder.ts";
import { lockDataDir } from "#local/data-lock.ts";
import { startMailEcho } from "#local/mail-echo.ts";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { StartupError, assertPortFree, portInUse, readPort } from "#local/startup-errors.ts";

/** cleanups undo what started so far, last first; run on a failed start and on stop. */
const cleanups: Array<() => Promise<void> | void> = [];
async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
}

async function start(): Promise<void> {
  const dataDir = resolve(settings.identity.dataDir.read(process.env, "local"));
  const port = readPort("PORT", 3000);
  // Loopback unless asked: the local server issues keys and fetches URLs, so it is not for the LAN.
  const host = process.env.HOST ?? "127.0.0.1";
  const sesPort = readPort("SIGNET_SES_PORT", 8005);
  const s3Port = readPort("SIGNET_S3_PORT", 8006); // the S3 stand-in (uploads)

  // The cheap checks first, so a clash is reported at once, not after the stand-ins and LibreOffice start.
  privateDataFolder(dataDir);
  cleanups.push(lockDataDir(dataDir));
  await assertPortFree("the API", host, port, "PORT");
  await assertPortFree("the mail stand-in (local SES)", "127.0.0.1", sesPort, "SIGNET_SES_PORT");
  await assertPortFree("the S3 stand-in (uploads)", "127.0.0.1", s3Port, "SIGNET_S3_PORT");

  const standIns = await startStandIns({ dataDir, sesPort, s3Port });
  startedStandIns = standIns;
  cleanups.push(() => standIns.close());
  // The AWS SDK takes its credentials from the environment: the stand-ins' (the S3 stand-in checks signatures).
  process.env.AWS_ACCESS_KEY_ID = standIns.env.AWS_ACCESS_KEY_ID;
  process.env.AWS_SECRET_ACCESS_KEY = standIns.env.AWS_SECRET_ACCESS_KEY;

  // One container on this environment plus the stand-ins' endpoints: every handler is made on it.
  // Imported only now: the modules below are the whole application, loaded once the cheap checks passed.
  const { createContainer } = await import("#wiring/container.ts");
  const container = createContainer(loadConfig({ ...process.env, ...standIns.env, SIGNET_DATA_DIR: dataDir }));
  const { libreOfficeReady } = await import("#wiring/conversion.ts");
  const libreOffice = await libreOfficeReady(container.config);
  if (libreOffice.status === "down") throw new StartupError(libreOffice.message ?? "LibreOffice is not available: set SIGNET_SOFFICE");
  const { bootstrap, prepareIdentity } = await import("#local/bootstrap.ts");
  const { answerRequestThatThrew, startLocalServer } = await import("#local/server.ts");
  const { guardUncaughtExceptions } = await import("#adapters/process-guard.ts");
  const shutdowns = await bootstrap(container);
  cleanups.push(async () => {
    for (const shutdown of shutdowns) await shutdown();
  });
  // No error of one request may end the server and drop every other request under way; the request
  // that threw gets a 500 when nothing of its answer went out yet.
  guardUncaughtExceptions(answerRequestThatThrew);
  const server = await startLocalServer({ port, host, container, warmVerifyThread: true }).catch((error: NodeJS.ErrnoException) => {
    throw error.code === "EADDRINUSE" ? portInUse("the API", host, port, "PORT") : error;
  });
  cleanups.push(() => server.close());
  await prepareIdentity(container);
  const mail = startMailEcho(standIns.sesEndpoint);
  cleanups.push(() => mail.stop());

  const examplesEnv = [port === 3000 ? "" : `SIGNET_URL=${server.url} `, sesPort === 8005 ? "" : `SIGNET_SES_URL=${standIns.sesEndpoint} `].join("");
  process.stdout.write(
    [
      "",
      `Signet is listening on ${server.url}`,
      `  health:         curl ${server.url}/v1/health`,
      `  API reference:  ${server.url}/docs`,
      `  mail (browser): ${standIns.sesEndpoint}   JSON: ${standIns.sesEndpoint}/store   (and printed below)`,
      `  S3 (uploads):   ${standIns.s3Endpoint}   (SIGNET_S3_PORT; objects in ${dataDir}/s3)`,
      ...(standIns.kms ? [`  signing key:    in the KMS stand-in ${standIns.kms.standIn.endpoint} (SIGNET_KMS_KEY_ID=local; keys in ${dataDir}/kms)`] : []),
      `  job worker:     ${server.jobWorker}`,
      `  data folder:    ${dataDir}`,
      `  examples:       ${examplesEnv}examples/walkthrough.sh`,
      "Press Ctrl+C to stop.",
      "",
    ].join("\n") + "\n",
  );
}

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: finishing requests under way, then stopping.\n`);
  await cleanUp();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));

/** failStart prints the one line for a failed start, cleans up and exits with 1. */
async function failStart(error: unknown): Promise<never> {
  await cleanUp();
  const known = error instanceof StartupError || (error instanceof Error && error.message.startsWith("Configuration error"));
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  process.stderr.write(`Signet cannot start: ${message}${known ? "" : " (unexpected; SIGNET_LOG_LEVEL=DEBUG shows the stack trace)"}\n`);
  if (!known && process.env.SIGNET_LOG_LEVEL === "DEBUG" && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}

// dynalite reports a data folder another process holds (leveldb's LOCK) only as an uncaught
// "Database is closed" from a callback; during start-up that means exactly this.
const dataDirTaken = (error: unknown) =>
  error instanceof Error && /Database is closed|IO error: lock/i.test(error.message)
    ? new StartupError(
        `the data folder ${resolve(settings.identity.dataDir.read(process.env, "local"))} is in use by another process (its database is locked): stop the other Signet server, or set SIGNET_DATA_DIR to another folder`,
      )
    : error;
let startedStandIns: StandIns | undefined;

/** startFailure is the error to report: the DynamoDB stand-in's own when it failed (a refused connection to it says less). */
async function startFailure(error: unknown): Promise<unknown> {
  return dataDirTaken((await startedStandIns?.dynamoFailure(1_000)) ?? error);
}

const onStartupCrash = (error: unknown) => void startFailure(error).then(failStart);
process.on("uncaughtException", onStartupCrash);
try {
  await start();
  process.off("uncaughtException", onStartupCrash);
} catch (error) {
  await failStart(await startFailure(error));
}

// The local server: embedded stand-ins for the AWS parts, then every handler on one port.
import { resolve } from "node:path";
import { startMailEcho } from "#local/mail-echo.ts";
import { startStandIns } from "#local/stand-ins.ts";

const dataDir = resolve(process.env.SIGNET_DATA_DIR ?? ".signet");
const port = Number(process.env.PORT ?? 3000);
// Loopback unless asked: the local server issues keys and fetches URLs, so it is not for the LAN.
const host = process.env.HOST ?? "127.0.0.1";
const sesPort = Number(process.env.SIGNET_SES_PORT ?? 8005);
const s3Port = Number(process.env.SIGNET_S3_PORT ?? 8006); // the S3 stand-in (uploads)

const standIns = await startStandIns({ dataDir, sesPort, s3Port });
Object.assign(process.env, standIns.env, { SIGNET_DATA_DIR: dataDir });

// Imported only now: configuration is read once, at import, from the environment set above.
const { bootstrap } = await import("#local/bootstrap.ts");
const { startLocalServer } = await import("#local/server.ts");
const shutdowns = await bootstrap();
const server = await startLocalServer({ port, host });
const mail = startMailEcho(standIns.sesEndpoint);

process.stdout.write(
  [
    "",
    `Signet is listening on ${server.url}`,
    `  health:         curl ${server.url}/v1/health`,
    `  API reference:  ${server.url}/docs`,
    `  mail (browser): ${standIns.sesEndpoint}   JSON: ${standIns.sesEndpoint}/store   (and printed below)`,
    `  S3 (uploads):   ${standIns.s3Endpoint}   (SIGNET_S3_PORT; objects in ${dataDir}/s3)`,
    `  data folder:    ${dataDir}`,
    "Press Ctrl+C to stop.",
    "",
  ].join("\n") + "\n",
);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: finishing requests under way, then stopping.\n`);
  mail.stop();
  await server.close();
  for (const shutdown of shutdowns) await shutdown();
  await standIns.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));

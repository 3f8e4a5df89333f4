/**
 * The DynamoDB stand-in's thread: dynalite and the TransactWriteItems shim in front of it
 * (local/dynalite-transactions.ts), on loopback. It runs beside the server's event loop, so the
 * per-request key lookups and rate counts the stand-in parses and stores don't queue behind
 * signing; on AWS that work is DynamoDB's. Started by startStandIns; answers { port } when
 * listening and closes on "close".
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import dynalite from "dynalite";
import { startTransactionShim } from "#local/dynalite-transactions.ts";
import { guardStandIn } from "#local/host-guard.ts";

const { path } = workerData as { path?: string };
// dynalite reports some failures by throwing from a callback ("Database is closed" when another
// process holds its folder). This thread stays up and hands them to the server's thread, which
// throws them as its own uncaught exception, as when dynalite ran there.
process.on("uncaughtException", (error) => parentPort!.postMessage({ fatal: { name: error.name, message: error.message } }));
const dynamo = dynalite({ ...(path ? { path } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }) as Server;
// dynalite answers CORS for any origin: loopback Host and no foreign Origin only.
guardStandIn(dynamo, "DynamoDB");
await new Promise<void>((resolve, reject) => {
  dynamo.once("error", reject);
  dynamo.listen(0, "127.0.0.1", () => resolve());
});
const dynamoUrl = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;
const shim = await startTransactionShim(dynamoUrl, 0);

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });

parentPort!.on("message", (message) => {
  if (message !== "close") return;
  void close(shim.server)
    .then(() => close(dynamo))
    .then(() => parentPort!.postMessage("closed"));
});
parentPort!.postMessage({ port: shim.port });

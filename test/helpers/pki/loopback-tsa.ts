// An RFC 3161 timestamp authority on loopback: `openssl ts -reply` behind HTTP, with a TSA
// certificate of the shared test PKI (test/helpers/pki/testing-pki.ts).
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { opensslAsync } from "#test/helpers/pki/openssl.ts";
import { testPki } from "#test/helpers/pki/test-pki.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

/** LoopbackTsa is an RFC 3161 timestamp authority on 127.0.0.1 (openssl ts -reply behind HTTP). */
export interface LoopbackTsa {
  url: string;
  /** PEM file of the TSA's certificate (with `selfSigned`, its own root, for validators). */
  certificatePem: string;
  requests: number;
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/**
 * startLoopbackTsa answers timestamp queries with `openssl ts -reply`, signing as the test PKI's
 * "tsa" (issued by "tsa-root", extendedKeyUsage timeStamping, critical). With `selfSigned` it
 * signs as "tsa-self-signed", its own root: its token's chain is complete and needs no revocation
 * data, for B-LT against a loopback TSA. `tamper` rewrites each reply before it goes out; `hold`,
 * called when a query has arrived, delays its reply until the promise it returns settles.
 */
export async function startLoopbackTsa(
  options: { tamper?: (reply: Buffer) => Buffer; selfSigned?: boolean; hold?: () => Promise<void> } = {},
): Promise<LoopbackTsa> {
  const dir = scratchDir("tsa");
  const pki = testPki();
  const signer = options.selfSigned ? "tsa-self-signed" : "tsa";
  writeFileSync(
    join(dir, "tsa.cnf"),
    [
      "[ tsa ]",
      "default_tsa = tsa_config",
      "[ tsa_config ]",
      `dir = ${dir}`,
      "serial = $dir/serial",
      "crypto_device = builtin",
      `signer_cert = ${pki.certificatePath(signer)}`,
      `certs = ${pki.certificatePath(signer)}`,
      `signer_key = ${pki.keyPath(signer)}`,
      "signer_digest = sha256",
      "default_policy = 1.2.3.4.1",
      "digests = sha256, sha384, sha512",
      "accuracy = secs:1",
      "ordering = yes",
      "tsa_name = yes",
      "ess_cert_id_chain = no",
      "ess_cert_id_alg = sha256",
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "serial"), "01\n");

  const state = { requests: 0, connections: 0 };
  // One `openssl ts -reply` at a time: concurrent runs race on the serial file, and the loser
  // answers a rejection (PKIStatus 2), which Signet rightly reports as TSA_FAILED.
  let replies: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const next = replies.then(work, work);
    replies = next.catch(() => undefined);
    return next;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      state.requests++;
      const queryPath = join(dir, `q${state.requests}.tsq`);
      const replyPath = join(dir, `r${state.requests}.tsr`);
      writeFileSync(queryPath, Buffer.concat(chunks));
      const held = options.hold ? options.hold() : Promise.resolve();
      held
        .then(() => oneAtATime(() => opensslAsync(dir, "ts", "-reply", "-config", "tsa.cnf", "-queryfile", queryPath, "-out", replyPath)))
        .then(
          () => {
            const reply = readFileSync(replyPath);
            res.writeHead(200, { "content-type": "application/timestamp-reply" }).end(options.tamper ? options.tamper(reply) : reply);
          },
          () => res.writeHead(500).end(),
        );
    });
  });
  server.on("connection", () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/tsr`,
    certificatePem: pki.certificatePath(signer),
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * forgeGenTime changes the year of the first GeneralizedTime (a TSTInfo's genTime) found in DER
 * bytes, keeping the length: the token still parses, but its TSA signature no longer matches.
 */
export function forgeGenTime(der: Buffer): Buffer {
  const forged = Buffer.from(der);
  const at = forged.findIndex(
    (byte, index) =>
      byte === 0x18 && forged[index + 1]! >= 0x0f && forged[index + 1]! < 0x20 && forged.subarray(index + 2, index + 4).toString("latin1") === "20",
  );
  if (at < 0) throw new Error("no GeneralizedTime in the token");
  forged[at + 5] = forged[at + 5] === 0x39 ? 0x38 : forged[at + 5]! + 1;
  return forged;
}

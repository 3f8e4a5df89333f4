// An HTTPS webhook receiver on loopback for the webhook tests: a throwaway certificate authority
// made with openssl, a server whose answer a test sets (down, 503, 200), and every request it
// got, headers and exact body. The safe fetcher reaches it with allowAddresses ["127.0.0.1"] and
// the receiver's certificate as its one extra CA, as the fetch tests reach http-fixture-server.ts.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Received is one request as it arrived. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered it with. */
  answered: number;
}

/** ReceiverMode is what the receiver does with the next requests: accept (200), fail (503), hang up at once, or never answer (until closed). */
export type ReceiverMode = "ok" | "unavailable" | "hang-up" | "silent";

/** WebhookReceiver is a running receiver. */
export interface WebhookReceiver {
  url(path?: string): string;
  /** The receiver's certificate (PEM), the CA a sender must trust. */
  ca: string;
  received: Received[];
  /** Requests taken in "silent" mode, not answered (yet): their bodies. */
  unanswered: string[];
  mode: ReceiverMode;
  /** stop closes the listening socket: connections are refused until start. */
  stop(): Promise<void>;
  /** start listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** selfSignedCertificate makes a P-256 key and a certificate for IP 127.0.0.1 (a CA of itself). */
function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "signet-webhook-tls-"));
  try {
    const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-keyout",
        key,
        "-out",
        cert,
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** startWebhookReceiver listens on https://127.0.0.1:<free port>, answering 200 until its mode changes. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const tls = selfSignedCertificate();
  const sockets = new Set<Duplex>();
  const receiver = { received: [] as Received[], unanswered: [] as string[], mode: "ok" as ReceiverMode };
  const server = https.createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (receiver.mode === "hang-up") return req.socket.destroy();
      if (receiver.mode === "silent") return void receiver.unanswered.push(Buffer.concat(chunks).toString("utf8"));
      const answered = receiver.mode === "ok" ? 200 : 503;
      receiver.received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8"), answered });
      res.writeHead(answered, { "content-type": "text/plain" }).end(answered === 200 ? "thanks" : "down for maintenance");
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  let port = 0;
  const listen = () => new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  await listen();
  port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: (path = "/hooks/signet") => `https://127.0.0.1:${port}${path}`,
    ca: tls.cert,
    stop,
    start: listen,
    close: () => (server.listening ? stop() : Promise.resolve()),
  });
}

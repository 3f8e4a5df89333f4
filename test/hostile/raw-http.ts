// A raw HTTP client for hostile-input tests: writes exactly the bytes given (no client fixes them
// up) and reads whatever the server answers until it closes the connection.
import net from "node:net";

/** RawAnswer is what came back on the socket: the status and parsed JSON body when there was one. */
export interface RawAnswer {
  /** The HTTP status, or undefined when the server closed without answering. */
  status?: number;
  headers: Record<string, string>;
  /** The body text (after the blank line). */
  body: string;
  json?: Record<string, any>;
  /** "closed" when the server closed the connection, "gave-up" when the client stopped waiting. */
  ended: "closed" | "gave-up";
}

export interface RawOptions {
  /** What the client does after writing: wait for the answer (default), half-close, or reset. */
  after?: "wait" | "end" | "destroy";
  /** Pieces written one by one with this pause between them (ms). */
  pauseMs?: number;
  /** Stop waiting after this many ms (default 20 s): a liveness guard, never asserted on. */
  giveUpMs?: number;
}

/** rawRequest sends `pieces` to host:port and collects the answer. */
export function rawRequest(port: number, pieces: Array<string | Buffer>, options: RawOptions = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (ended: RawAnswer["ended"]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks), ended));
    };
    const timer = setTimeout(() => finish("gave-up"), options.giveUpMs ?? 20_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => finish("closed"));
    socket.on("error", () => finish("closed"));
    socket.on("connect", async () => {
      for (const [i, piece] of pieces.entries()) {
        if (i > 0 && options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
        if (socket.destroyed) return;
        socket.write(piece);
      }
      if (options.after === "end") socket.end();
      if (options.after === "destroy") socket.destroy();
    });
  });
}

function parseAnswer(bytes: Buffer, ended: RawAnswer["ended"]): RawAnswer {
  const text = bytes.toString("utf8");
  const head = text.split("\r\n\r\n", 1)[0] ?? "";
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  if (!match) return { headers: {}, body: text, ended };
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const raw = bytes.subarray(Buffer.byteLength(head, "utf8") + 4);
  // Streamed answers (sign, annotate, convert) come chunked, as from API Gateway.
  const body = (headers["transfer-encoding"]?.toLowerCase() === "chunked" ? dechunk(raw) : raw).toString("utf8");
  let json: Record<string, any> | undefined;
  try {
    json = JSON.parse(body) as Record<string, any>;
  } catch {
    json = undefined;
  }
  return { status: Number(match[1]), headers, body, ...(json ? { json } : {}), ended };
}

/** dechunk joins the chunks of a chunked body (as far as it arrived). */
function dechunk(raw: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf("\r\n", at);
    if (eol < 0) return Buffer.concat(out);
    const size = Number.parseInt(raw.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) return Buffer.concat(out);
    out.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** request builds the bytes of one HTTP/1.1 request with Connection: close. */
export function request(method: string, path: string, headers: Record<string, string | number>, body: string | Buffer = ""): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1"), Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8")]);
}

import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** FixtureServer is a throwaway HTTP server on loopback for fetch tests. */
export interface FixtureServer {
  port: number;
  url(path: string): string;
  /** Every request that arrived, on any of its addresses: "<address> <method> <path>", oldest first. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * startFixtureServer serves requests with the given function on 127.0.0.1 and a free port, and on
 * the same port at each of `alsoOn` (other loopback addresses: 127.0.0.2, ::1), so that a test of
 * a refused address can check that nothing reached it there either.
 */
export async function startFixtureServer(serve: (req: IncomingMessage, res: ServerResponse) => void, alsoOn: string[] = []): Promise<FixtureServer> {
  const requests: string[] = [];
  const listen = async (host: string, port: number) => {
    const server = http.createServer((req, res) => {
      requests.push(`${host} ${req.method} ${req.url}`);
      serve(req, res);
    });
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
    return server;
  };
  const first = await listen("127.0.0.1", 0);
  const port = (first.address() as AddressInfo).port;
  const servers = [first, ...(await Promise.all(alsoOn.map((host) => listen(host, port))))];
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

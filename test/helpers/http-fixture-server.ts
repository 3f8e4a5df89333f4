import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** FixtureServer is a throwaway HTTP server on loopback for fetch tests. */
export interface FixtureServer {
  port: number;
  url(path: string): string;
  close(): Promise<void>;
}

/** startFixtureServer serves requests with the given function on 127.0.0.1 and a free port. */
export async function startFixtureServer(serve: (req: IncomingMessage, res: ServerResponse) => void): Promise<FixtureServer> {
  const server = http.createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

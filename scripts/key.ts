// npm run key -- me@example.com
// Gets an API key from the running local server (npm start): registers the address, reads the
// code from the local SES store, verifies it and prints the key (only the key goes to stdout).
// SIGNET_URL / SIGNET_SES_URL, or PORT / SIGNET_SES_PORT as npm start got them, point elsewhere
// (defaults http://localhost:3000 and http://127.0.0.1:8005).
import { mintLocalKey } from "../examples/local-key.ts";

const email = process.argv[2];
if (!email || email.startsWith("-")) {
  process.stderr.write("usage: npm run key -- me@example.com\n");
  process.exit(64);
}
const baseUrl = process.env.SIGNET_URL ?? `http://localhost:${process.env.PORT || 3000}`;
const sesUrl = process.env.SIGNET_SES_URL ?? `http://127.0.0.1:${process.env.SIGNET_SES_PORT || 8005}`;
try {
  const reachable = await fetch(`${baseUrl}/v1/health`).then(
    () => true,
    () => false,
  );
  if (!reachable) throw new Error(`no Signet at ${baseUrl}: run npm start (or set SIGNET_URL, or PORT as npm start got it)`);
  const key = await mintLocalKey({ baseUrl, sesUrl, email });
  process.stderr.write(`A new key for ${email} from ${baseUrl} (store it now: it cannot be shown again):\n`);
  process.stdout.write(`${key}\n`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
}

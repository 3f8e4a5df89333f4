// npm run key -- me@example.com
// Gets an API key from the running local server (npm start): registers the address, reads the
// code from the local SES store, verifies it and prints the key (only the key goes to stdout).
// SIGNET_URL (default http://localhost:3000) and SIGNET_SES_URL (default http://127.0.0.1:8005)
// point elsewhere.
import { mintLocalKey } from "../examples/local-key.ts";

const email = process.argv[2];
if (!email || email.startsWith("-")) {
  process.stderr.write("usage: npm run key -- me@example.com\n");
  process.exit(64);
}
const baseUrl = process.env.SIGNET_URL ?? "http://localhost:3000";
const sesUrl = process.env.SIGNET_SES_URL ?? "http://127.0.0.1:8005";
try {
  const key = await mintLocalKey({ baseUrl, sesUrl, email });
  process.stderr.write(`A new key for ${email} from ${baseUrl} (store it now: it cannot be shown again):\n`);
  process.stdout.write(`${key}\n`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
}

// Run as a child process by the job restart test: starts the whole local API on the data folder
// given as argv[3] (kept by close, so a second child starts on the same jobs), gets a real key
// unless SIGNET_TEST_KEY names one already in that folder, and tells the parent { url, key } over
// IPC. The parent ends it with SIGKILL to its process group: no clean shutdown, as in a crash.
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";

const name = process.argv[2] ?? "jobs-child";
const api = await startLocalApi(name, {}, { dataDir: process.argv[3]! });
const key = process.env.SIGNET_TEST_KEY || (await obtainKey(api, name));
process.send!({ url: api.url, key });
setInterval(() => undefined, 60_000);

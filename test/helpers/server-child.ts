// Run as a child process by tests that watch the local server from outside (its health answers and
// its memory while a request runs): starts the whole local API in this process, gets a real key, and
// tells the parent { url, key } over IPC. The parent ends it with SIGKILL to its process group.
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";

const api = await startLocalApi(process.argv[2] ?? "server-child");
const key = await obtainKey(api, process.argv[2] ?? "server-child");
process.send!({ url: api.url, key });
setInterval(() => undefined, 60_000);

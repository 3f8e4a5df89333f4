// What this machine allows, probed by the tests themselves and never by the code under test: the
// expectation an isolation test compares Signet against. If the product stopped isolating, a test
// that asked the product would expect nothing and skip; this probe still says a namespace is there.
import { spawnSync } from "node:child_process";

/** NetworkIsolation names the network namespace a process can be started in here (as isolation.ts names it). */
export type NetworkIsolation = "netns" | "userns-netns" | "none";

function runs(args: string[]): boolean {
  return spawnSync("unshare", [...args, "--", "true"], { stdio: "ignore", timeout: 30_000 }).status === 0;
}

/**
 * networkIsolationHere is the namespace util-linux `unshare` can make on this machine: a network
 * namespace as root (`unshare --net`), else a user and network namespace (`--user --map-root-user
 * --net`), else none (no unshare, or a container that forbids both).
 */
export const networkIsolationHere: NetworkIsolation = runs(["--net"]) ? "netns" : runs(["--user", "--map-root-user", "--net"]) ? "userns-netns" : "none";

/** NO_NAMESPACE_HERE is why the namespace tests fail on a machine that cannot make a network namespace. */
export const NO_NAMESPACE_HERE =
  "this machine cannot make a network namespace: `unshare --net true` (as root) and `unshare --user --map-root-user --net true` (unprivileged user namespaces) both fail; install util-linux's unshare and run as root, or allow user namespaces";

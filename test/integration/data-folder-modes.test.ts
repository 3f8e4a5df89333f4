// Everything the local server writes into its data folder (the
// key database, uploads, the signing identity, the lock file) is 0600 in 0700 folders.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upload } from "#test/helpers/large-docs.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi("data-modes", { SIGNET_TABLE: "signet-data-modes", SIGNET_CONVERSION_MODE: "oneshot", SIGNET_LOG_LEVEL: "ERROR" });
}, 120_000);
afterAll(async () => {
  await api?.close();
});

/** walk lists every file and folder under a folder with its permission bits. */
function walk(dir: string): Array<{ path: string; folder: boolean; mode: number }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const mode = statSync(path).mode & 0o777;
    return entry.isDirectory() ? [{ path, folder: true, mode }, ...walk(path)] : [{ path, folder: false, mode }];
  });
}

describe("the data folder", () => {
  it("holds only 0600 files in 0700 folders after keys, an upload and the identity were written", async () => {
    const key = await obtainKey(api, "modes");
    await upload(api.url, key, Buffer.from("%PDF-1.7\nnot really a PDF, only bytes to store\n"));
    const entries = walk(api.dataDir);
    // The key database, the upload and the identity are all there.
    const names = entries.map((entry) => relative(api.dataDir, entry.path));
    expect(names.some((name) => name.startsWith("dynamodb/") && !name.endsWith("/"))).toBe(true);
    expect(names.some((name) => name.startsWith("s3/signet-uploads/uploads"))).toBe(true);
    expect(names.some((name) => name.startsWith("identity/"))).toBe(true);
    const loose = entries.filter((entry) => (entry.mode & 0o077) !== 0 || (!entry.folder && entry.mode !== 0o600) || (entry.folder && entry.mode !== 0o700));
    expect(loose.map((entry) => `${relative(api.dataDir, entry.path)} ${entry.mode.toString(8)}`)).toEqual([]);
    expect(statSync(api.dataDir).mode & 0o777).toBe(0o700);
  });
});

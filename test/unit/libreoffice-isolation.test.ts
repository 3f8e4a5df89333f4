// Where prlimit, bwrap or unshare is missing (the Lambda image has neither), LibreOffice still runs, and
// the one start-up line says what is not in effect. No program is found on this PATH,
// so nothing is spawned.
import { describe, expect, it } from "vitest";
import { confine, detectIsolation } from "#adapters/libreoffice/isolation.ts";

describe("detectIsolation without prlimit, bwrap and unshare", () => {
  it("runs LibreOffice plainly and says so in one line", async () => {
    const isolation = await detectIsolation("auto", 4096 * 1024 * 1024, { PATH: "/nonexistent" });
    expect(isolation).toMatchObject({ network: "none", files: "none", memoryBytes: undefined, prefix: [] });
    expect(isolation.summary).toBe(
      "LibreOffice runs with the host's network: no network namespace is available here, and sees every file this process can read (no working bubblewrap: install bubblewrap); no memory cap (prlimit is not installed; the process's own memory limit, on Lambda the function's memory size, bounds it)",
    );
    expect(confine(isolation, "/opt/signet/soffice", ["--headless"])).toEqual(["/opt/signet/soffice", ["--headless"]]);
  });

  it("names a memory cap turned off as such", async () => {
    expect((await detectIsolation("off", undefined, { PATH: "/nonexistent" })).summary).toBe(
      "LibreOffice runs with the host's network and files (SIGNET_LIBREOFFICE_ISOLATION=off); no memory cap (SIGNET_LIBREOFFICE_MEMORY_MB=0)",
    );
  });
});

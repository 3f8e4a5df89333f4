// LibreOffice sees only its own job (issue 36). Canaries (a picture, a PDF with a marker, a text
// file: test/helpers/canaries.ts) sit at a fixed path in /tmp, in the data folder, in another
// slot's job folder, next to the job folders, and behind /proc/<server pid>/root. Documents the
// input checks let through (a nested SVG picture in a DOCX, an RTF INCLUDEPICTURE field starting
// with "=") point at all of them. Driven straight at the converter (no input checks), warm,
// one-shot and on the hand-over path: with isolation off every canary comes back (the vectors are
// live), with the sandbox none does. Then through the real local server: convert, annotate
// to=pdf and sign. Whether the sandbox is expected comes from the system (bwrap runs or not),
// never from the code under test, so with the sandbox removed these tests fail instead of skipping.
import { execFile, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLibreOfficeConverter, type LibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import type { SourceFormat } from "#domain/conversion/converter.ts";
import { canaryIn, plantCanaries, type Canaries } from "#test/helpers/canaries.ts";
import { includePictureRtf, nestedSvgDocx } from "#test/helpers/canary-vectors.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

/** bwrapHere: the system runs bubblewrap (found on PATH, `bwrap --ro-bind / / true` works), asked of the system directly. */
const bwrapHere = spawnSync("bwrap", ["--ro-bind", "/", "/", "true"]).status === 0;
/** NO_BWRAP is why every sandbox test fails where bubblewrap is missing or cannot run: the suite needs it, never skips it. */
const NO_BWRAP =
  "bubblewrap does not run here (`bwrap --ro-bind / / true` fails): install Debian's bubblewrap (npm test's setup does as root) on a system that allows user namespaces";
const expectedFiles = "bwrap";

const root = mkdtempSync(join(tmpdir(), "signet-office-sandbox-"));
const planted: string[] = [];
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  for (const dir of planted) rmSync(dir, { recursive: true, force: true });
});

/** Places are the canaries one test plants, by where they are. */
type Places = Record<string, Canaries>;

/** plantAround plants canaries at a fixed /tmp path, behind /proc (another fixed /tmp path), in `data`, and in the converter's work folder. */
async function plantAround(workDir: string, data: string): Promise<Places> {
  const fixed = await plantCanaries();
  const proc = await plantCanaries();
  planted.push(fixed.dir, proc.dir);
  // plantCanaries writes into an existing folder.
  for (const folder of [join(workDir, "slots", "1", "job"), join(data, "canaries")]) mkdirSync(folder, { recursive: true });
  return {
    "a fixed /tmp path": fixed,
    "the data folder": await plantCanaries(join(data, "canaries")),
    "another slot's job folder": await plantCanaries(join(workDir, "slots", "1", "job")),
    "the folder job folders are made in": await plantCanaries(join(workDir, "slots")),
    // The same file seen through this process's /proc entry: a PID namespace has no such entry.
    "/proc/<pid>/root": { ...proc, picture: `/proc/${process.pid}/root${proc.picture}`, pdf: `/proc/${process.pid}/root${proc.pdf}` },
  };
}

const TEXT = "Sandboxed document text";

/**
 * documents are the vectors: one DOCX whose nested SVG pictures point at every place, and one RTF
 * per place embedding its PDF (one field per document: with several, LibreOffice under load once
 * exported before every linked PDF was drawn, and a place would have passed unproven).
 */
function documents(places: Places): Array<{ name: string; from: SourceFormat; bytes: Buffer; finds: "picture" | "marker"; only?: string }> {
  const all = Object.values(places);
  return [
    {
      name: "DOCX nested SVG pictures",
      from: "docx",
      bytes: nestedSvgDocx(
        all.map((c) => c.picture),
        TEXT,
      ),
      finds: "picture",
    },
    ...Object.entries(places).map(([where, c]) => ({
      name: `RTF '= INCLUDEPICTURE' PDF in ${where}`,
      from: "rtf" as const,
      bytes: includePictureRtf([c.pdf], TEXT),
      finds: "marker" as const,
      only: where,
    })),
  ];
}

/** leaks lists, per place, what of its canaries an answer holds. */
function leaks(answer: Uint8Array, places: Places): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(places).map(([where, canaries]) => [where, canaryIn(answer, canaries)]));
}

describe("the sandbox expected here", () => {
  it("bubblewrap runs on this machine", () => {
    expect(bwrapHere, NO_BWRAP).toBe(true);
  });

  it("is what the system allows, found without the code under test", async () => {
    const office = createLibreOfficeConverter(officeOptions({ mode: "oneshot", concurrency: 1, workDir: join(root, "probe") }));
    try {
      await office.warm();
      expect(office.isolation()?.files).toBe(expectedFiles);
    } finally {
      await office.close();
    }
  });
});

describe.each(["warm", "oneshot"] as const)("%s LibreOffice, documents as they are (no input checks)", (mode) => {
  describe.each([
    ["isolation off: every canary comes back (the vectors are live)", "off"],
    ["the sandbox: no canary comes back", "auto"],
  ] as const)("%s", (_, isolation) => {
    const workDir = join(root, `${mode}-${isolation}`);
    let office: LibreOfficeConverter;
    let places: Places;
    beforeAll(async () => {
      // Two slots: jobs run in slot 0 while slot 1's job folder holds canaries.
      office = createLibreOfficeConverter(officeOptions({ mode, concurrency: 2, timeoutMs: 90_000, isolation, workDir }));
      await office.warm();
      places = await plantAround(workDir, join(root, `data-${mode}-${isolation}`));
    }, 180_000);
    afterAll(() => office?.close());

    const expectAnswer = async (answer: Uint8Array, finds: "picture" | "marker", only?: string) => {
      expect(await pdfText(answer)).toContain(TEXT);
      const found = leaks(answer, places);
      if (isolation === "off") {
        // Every place is readable without the sandbox: the picture of each place, or the place's own marker.
        for (const [where, what] of Object.entries(found)) {
          if (!only || only === where) expect(what, where).toBe(finds === "marker" ? "marker text" : "picture 37x23");
        }
      } else {
        expect(office.isolation()?.files).toBe(expectedFiles);
        expect(found).toEqual(Object.fromEntries(Object.keys(places).map((where) => [where, undefined])));
      }
    };

    it("converts every vector", async () => {
      for (const doc of documents(places)) {
        const answer = await office.convert({ bytes: doc.bytes, from: doc.from, to: "pdf" });
        await expectAnswer(answer, doc.finds, doc.only);
      }
      // Still the path under test (a warm instance that failed would have fallen back to one-shot).
      expect(office.state().mode).toBe(mode);
    }, 300_000);

    it.runIf(mode === "warm")("converts a DOCX handed over to the warm instance (--convert-to into the running LibreOffice)", async () => {
      const paths = Object.values(places).map((c) => c.picture);
      const answer = await office.convert({ bytes: nestedSvgDocx(paths, TEXT, { comments: true }), from: "docx", to: "pdf" });
      await expectAnswer(answer, "picture");
      expect(office.state().mode).toBe("warm");
    });

    it("leaves the other slot's job folder alone and its own empty", () => {
      expect(readdirSync(join(workDir, "slots", "0", "job"))).toEqual([]);
      expect(readdirSync(join(workDir, "slots", "1", "job")).sort()).toEqual(["canary.pdf", "canary.png", "canary.txt"]);
    });
  });
});

describe("through the local server (isolation as the system allows)", () => {
  let api: LocalApi;
  let key: string;
  let places: Places;
  beforeAll(async () => {
    api = await startLocalApi("office-sandbox", {
      SIGNET_TABLE: "signet-office-sandbox",
      SIGNET_CONVERSION_CONCURRENCY: "2",
      SIGNET_LIBREOFFICE_ISOLATION: "auto",
    });
    key = await obtainKey(api, "office");
    // The server's converter has its work folder under the temporary folder, named after this process.
    const work = readdirSync(tmpdir()).filter((name) => name.startsWith(`signet-lo-${process.pid}-`));
    expect(work).toHaveLength(1);
    places = await plantAround(join(tmpdir(), work[0]!), api.dataDir);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  /** expectNoCanary: a 200 holds the document's text and no canary; a 4xx (the input checks refusing the vector) holds none either. */
  async function expectNoCanary(status: number, answer: Buffer): Promise<void> {
    expect([200, 422]).toContain(status);
    if (status === 200) expect(await pdfText(answer)).toContain(TEXT);
    expect(leaks(answer, places)).toEqual(Object.fromEntries(Object.keys(places).map((where) => [where, undefined])));
  }

  it("runs LibreOffice in the sandbox the system allows", async () => {
    const { converter } = await import("#wiring/conversion.ts");
    expect(converter().isolation()?.files).toBe(expectedFiles);
  });

  it("convert: no canary in any answer", async () => {
    for (const doc of documents(places)) {
      const form = new FormData();
      form.append("file", new Blob([doc.bytes]), `document.${doc.from}`);
      const response = await fetch(`${api.url}/v1/convert?from=${doc.from}&to=pdf`, {
        method: "POST",
        body: form,
        headers: { authorization: `Bearer ${key}` },
      });
      await expectNoCanary(response.status, Buffer.from(await response.arrayBuffer()));
    }
  });

  it("annotate to=pdf and sign with a DOCX: no canary in any answer", async () => {
    const docx = nestedSvgDocx(
      Object.values(places).map((c) => c.picture),
      TEXT,
    ).toString("base64");
    const annotated = await api.postJson("/v1/annotate?to=pdf", { document: { base64: docx }, fields: [] }, key);
    await expectNoCanary(
      annotated.status,
      annotated.status === 200
        ? Buffer.from(annotated.json.document.base64.replace(/^data:[^,]*,/, ""), "base64")
        : Buffer.from(JSON.stringify(annotated.json)),
    );
    const signed = await api.postJson(
      "/v1/sign",
      {
        document: { base64: docx },
        signer: { name: "Ada Lovelace", email: "ada@example.com" },
        auditTrail: [{ type: "submit", timestamp: "2026-11-25T10:00:00Z" }],
        certificate: { enabled: false },
      },
      key,
    );
    await expectNoCanary(signed.status, signed.status === 200 ? Buffer.from(signed.json.document.base64, "base64") : Buffer.from(JSON.stringify(signed.json)));
  });
});

describe("SIGNET_LIBREOFFICE_ISOLATION=required where bubblewrap does not work", () => {
  it("the local server does not start: one line naming the setting, exit code 1", async () => {
    // A bwrap that fails, first on PATH: the sandbox cannot be made (as on a system without it).
    const bin = join(root, "failing-bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\nexit 1\n");
    chmodSync(join(bin, "bwrap"), 0o755);
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      PORT: "0",
      SIGNET_SES_PORT: "0",
      SIGNET_S3_PORT: "0",
      SIGNET_DATA_DIR: mkdtempSync(join(root, "data-")),
      SIGNET_LOG_LEVEL: "ERROR",
      SIGNET_LIBREOFFICE_ISOLATION: "required",
    };
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ["--import", "tsx", "local/main.ts"], { env, timeout: 120_000 }, (_error, stdout, stderr) =>
        resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).not.toContain("listening on");
    const lines = result.stderr.split("\n").filter((line) => line.trim() && !line.startsWith("npm warn"));
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^Signet cannot start: SIGNET_LIBREOFFICE_ISOLATION=required, but no bubblewrap sandbox works here \(.*\): install bubblewrap/);
  });
});

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { config } from "#config";
import { logger } from "#adapters/powertools-logger.ts";
import { runGroup, type GroupResult } from "#adapters/libreoffice-process.ts";
import { locateSoffice, pythonCandidates, seedProfile, sofficeEnvironment } from "#adapters/libreoffice-profile.ts";
import { unoDriverSource } from "#adapters/libreoffice-uno-driver.ts";
import { WarmOffice, type WarmJob } from "#adapters/libreoffice-warm.ts";
import { decodeText, targetMediaTypes } from "#domain/conversion.ts";
import type { ConversionRequest, Converter, SourceFormat, TargetFormat } from "#domain/converter.ts";
import { detectDocumentType } from "#domain/document.ts";
import { SignetError } from "#domain/errors.ts";
import { markdownToHtml, sanitizeHtml } from "#domain/markup.ts";

/** LibreOfficeConverterOptions configure a converter; the defaults come from config.conversion. */
export interface LibreOfficeConverterOptions {
  /** soffice to run; located (PATH, Lambda layer folders) when unset. */
  soffice?: string;
  /** Hard limit for one conversion (LibreOffice start included); the process group is killed after it. */
  timeoutMs: number;
  /** Conversions running at once (one LibreOffice each). */
  concurrency: number;
  /** Conversions that may wait for a free slot; more are refused with RATE_LIMIT_ERROR. */
  queueLength: number;
  /** "warm": keep one LibreOffice per slot running between jobs; "oneshot": start one per job. */
  mode: "warm" | "oneshot";
  /** A warm LibreOffice is replaced after this many conversions (bounds leaks). */
  maxConversionsPerProcess: number;
  /** Python that can `import uno`; tried from pythonCandidates() when unset. */
  python?: string;
  /** Folder for profiles and job files; a fresh private one under the OS temp folder when unset. */
  workDir?: string;
  /** Environment the allow-list is taken from. */
  env?: NodeJS.ProcessEnv;
}

/** LibreOfficeConverter is the Converter port plus the lifecycle the process owner needs. */
export interface LibreOfficeConverter extends Converter {
  /** warm locates LibreOffice and starts every warm instance now rather than on first use. */
  warm(): Promise<void>;
  /** close waits for running conversions, stops every LibreOffice and removes the work folder. */
  close(): Promise<void>;
  /** state reports the effective mode and the load, for logs and tests. */
  state(): { mode: "warm" | "oneshot" | "unknown"; running: number; queued: number };
}

const defaults: LibreOfficeConverterOptions = {
  timeoutMs: 60_000,
  concurrency: 2,
  queueLength: 16,
  mode: "warm",
  maxConversionsPerProcess: 200,
};

// Import filters are forced (no type detection): the bytes were checked to be this format.
const importFilters: Record<SourceFormat, { filter: string; extension: string }> = {
  docx: { filter: "MS Word 2007 XML", extension: "docx" },
  doc: { filter: "MS Word 97", extension: "doc" },
  odt: { filter: "writer8", extension: "odt" },
  rtf: { filter: "Rich Text Format", extension: "rtf" },
  html: { filter: "HTML (StarWriter)", extension: "html" },
  md: { filter: "HTML (StarWriter)", extension: "html" },
};

const exportFilters: Record<TargetFormat, string> = {
  pdf: "writer_pdf_Export",
  docx: "MS Word 2007 XML",
};

const SOFFICE_FLAGS = ["--headless", "--invisible", "--nologo", "--nodefault", "--norestore", "--nolockcheck", "--nofirststartwizard"];

interface Setup {
  soffice: string;
  workDir: string;
  home: string;
  env: Record<string, string>;
  /** The python for the warm path, or undefined when only one-shot is possible. */
  python?: string;
  driverPath: string;
}

interface Slot {
  busy: boolean;
  warm?: WarmOffice;
  generation: number;
}

interface Prepared {
  inputPath: string;
  outDir: string;
  outputPath: string;
  from: SourceFormat;
  to: TargetFormat;
  pdfa: boolean;
}

function timeoutError(timeoutMs: number): SignetError {
  return new SignetError(
    "CONVERSION_TIMEOUT",
    `The conversion did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped; simplify or split the document and try again.`,
  );
}

function unreadable(from: SourceFormat): SignetError {
  return new SignetError("INVALID_DOCUMENT", `LibreOffice could not read the file as ${from}; check that it opens in a word processor and that from= names its format.`);
}

function canImportUno(python: string, env: Record<string, string>): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import uno"], { env, timeout: 15_000 }, (error) => resolve(!error));
  });
}

/**
 * createLibreOfficeConverter builds a converter. It does nothing at creation: LibreOffice is
 * located and started on first use (or on warm()). Every job gets a private folder; every
 * LibreOffice process its own seeded profile, an allow-listed environment and a hard time-out
 * that kills its whole process group.
 */
export function createLibreOfficeConverter(options: Partial<LibreOfficeConverterOptions> = {}): LibreOfficeConverter {
  const settings: LibreOfficeConverterOptions = { ...defaults, ...options };
  const slots: Slot[] = Array.from({ length: settings.concurrency }, () => ({ busy: false, generation: 0 }));
  const waiting: Array<{ resolve: (slot: number) => void; reject: (error: Error) => void }> = [];
  const running = new Set<Promise<unknown>>();
  let setup: Promise<Setup> | undefined;
  let warmUsable = settings.mode === "warm";
  let startFailures = 0;
  let averageMs = 2_000;
  const tag = randomBytes(4).toString("hex");

  const killAll = () => {
    for (const slot of slots) slot.warm?.stop();
  };

  async function prepare(): Promise<Setup> {
    const sourceEnv = settings.env ?? process.env;
    const soffice = await locateSoffice(settings.soffice, sourceEnv);
    if (!soffice) {
      throw new SignetError(
        "SERVICE_UNAVAILABLE",
        "Document conversion is not available: LibreOffice is not installed on the server (operators: install libreoffice-writer or set SIGNET_SOFFICE).",
      );
    }
    const workDir = settings.workDir ?? (await mkdtemp(join(tmpdir(), "signet-lo-")));
    const home = join(workDir, "home");
    await mkdir(join(workDir, "jobs"), { recursive: true, mode: 0o700 });
    await mkdir(home, { recursive: true, mode: 0o700 });
    const env = sofficeEnvironment(home, sourceEnv);
    const driverPath = join(workDir, "uno-driver.py");
    await writeFile(driverPath, unoDriverSource, { mode: 0o600 });
    let python: string | undefined;
    if (settings.mode === "warm") {
      for (const candidate of settings.python ? [settings.python] : pythonCandidates(soffice)) {
        if (await canImportUno(candidate, env)) {
          python = candidate;
          break;
        }
      }
      if (!python) logger.warn("python3-uno not found: LibreOffice runs one-shot per conversion (slower)");
    }
    warmUsable = python !== undefined;
    process.on("exit", killAll);
    return { soffice, workDir, home, env, driverPath, ...(python ? { python } : {}) };
  }

  function ready(): Promise<Setup> {
    setup ??= prepare().catch((error: unknown) => {
      setup = undefined;
      throw error;
    });
    return setup;
  }

  function acquire(): Promise<number> {
    const free = slots.findIndex((slot) => !slot.busy);
    if (free >= 0) {
      slots[free]!.busy = true;
      return Promise.resolve(free);
    }
    if (waiting.length >= settings.queueLength) {
      const retryAfterSeconds = Math.max(1, Math.ceil(((waiting.length / settings.concurrency + 1) * averageMs) / 1000));
      return Promise.reject(
        new SignetError("RATE_LIMIT_ERROR", `The converter is busy (${settings.concurrency} conversions running, ${waiting.length} waiting); retry in ${retryAfterSeconds} s.`, {
          retryAfterSeconds,
        }),
      );
    }
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  }

  function release(index: number): void {
    const next = waiting.shift();
    if (next) next.resolve(index);
    else slots[index]!.busy = false;
  }

  async function writeInput(request: ConversionRequest, jobDir: string): Promise<Prepared> {
    const input = importFilters[request.from];
    const inputPath = join(jobDir, `document.${input.extension}`);
    let bytes: Uint8Array | string = request.bytes;
    // LibreOffice 7.4 has no Markdown import, and its HTML import fetches linked resources:
    // both arrive as sanitized, self-contained HTML.
    // The text is decoded once: by checkConversionInput (request.text) or, for other callers, here.
    if (request.from === "md") bytes = markdownToHtml(request.text ?? decodeText(request.bytes, "Markdown"));
    if (request.from === "html") bytes = sanitizeHtml(request.text ?? decodeText(request.bytes, "HTML"));
    await writeFile(inputPath, bytes, { mode: 0o600 });
    const outDir = join(jobDir, "out");
    await mkdir(outDir, { mode: 0o700 });
    const outputPath = join(outDir, `document.${targetMediaTypes[request.to].extension}`);
    return { inputPath, outDir, outputPath, from: request.from, to: request.to, pdfa: request.pdfa === true };
  }

  async function freshOutput(job: Prepared, name: string): Promise<Prepared> {
    await rm(job.outDir, { recursive: true, force: true });
    const outDir = join(job.outDir, "..", `out-${name}`);
    await mkdir(outDir, { mode: 0o700 });
    return { ...job, outDir, outputPath: join(outDir, `document.${targetMediaTypes[job.to].extension}`) };
  }

  // Reads and checks the output: success is a file of the target type, not an exit code.
  async function readOutput(job: Prepared): Promise<Buffer | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(job.outputPath);
    } catch {
      return undefined;
    }
    if (job.to === "pdf") return bytes.subarray(0, 5).toString("latin1") === "%PDF-" ? bytes : undefined;
    return detectDocumentType(bytes, { maxEntries: 100_000, maxUncompressedBytes: Number.MAX_SAFE_INTEGER }) === "docx" ? bytes : undefined;
  }

  async function runOneShot(env: Setup, index: number, job: Prepared, deadline: number): Promise<Buffer> {
    const profile = await seedProfile(join(env.workDir, "profiles", `oneshot-${index}`));
    const filterData = job.pdfa ? `:${JSON.stringify({ SelectPdfVersion: { type: "long", value: "2" } })}` : "";
    const target = `${targetMediaTypes[job.to].extension}:${exportFilters[job.to]}${filterData}`;
    const args = [
      `-env:UserInstallation=${profile}`,
      ...SOFFICE_FLAGS,
      `--infilter=${importFilters[job.from].filter}`,
      "--convert-to",
      target,
      "--outdir",
      job.outDir,
      job.inputPath,
    ];
    let result: GroupResult;
    try {
      result = await runGroup(env.soffice, args, { env: env.env, cwd: env.home, timeoutMs: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      throw new SignetError("SERVICE_UNAVAILABLE", "Document conversion is not available right now: LibreOffice could not be started.", { cause: error });
    }
    if (result.timedOut) throw timeoutError(settings.timeoutMs);
    const output = await readOutput(job);
    if (output) return output;
    if (result.code !== 0) {
      throw new Error(`LibreOffice failed (exit ${result.code ?? result.signal}): ${result.stderr.trim().slice(-500)}`);
    }
    throw unreadable(job.from);
  }

  async function runWarm(env: Setup, index: number, job: Prepared, deadline: number): Promise<Buffer | "fallback"> {
    const slot = slots[index]!;
    if (!slot.warm?.alive || slot.warm.conversions >= settings.maxConversionsPerProcess) {
      await slot.warm?.terminate(); // one LibreOffice per slot, never two at once
      slot.generation++;
      const profile = await seedProfile(join(env.workDir, "profiles", `warm-${index}`));
      slot.warm = new WarmOffice({
        python: env.python!,
        driverPath: env.driverPath,
        argv: [env.soffice, `-env:UserInstallation=${profile}`, ...SOFFICE_FLAGS],
        pipeName: `signet-${process.pid}-${tag}-${index}-${slot.generation}`,
        env: env.env,
        cwd: env.home,
      });
    }
    const warmJob: WarmJob = {
      input: pathToFileURL(job.inputPath).href,
      output: pathToFileURL(job.outputPath).href,
      inFilter: importFilters[job.from].filter,
      outFilter: exportFilters[job.to],
      ...(job.pdfa ? { filterData: { SelectPdfVersion: 2 } } : {}),
    };
    const outcome = await slot.warm.run(warmJob, deadline);
    if (outcome.ok) {
      startFailures = 0;
      return (await readOutput(job)) ?? Promise.reject(unreadable(job.from));
    }
    switch (outcome.kind) {
      case "timeout":
        throw timeoutError(settings.timeoutMs);
      case "load":
        throw unreadable(job.from);
      case "unavailable":
        await slot.warm.terminate();
        if (++startFailures >= 2) {
          warmUsable = false;
          logger.warn("warm LibreOffice does not start; using one-shot conversions from now on", { error: outcome.error });
        }
        return "fallback";
      default:
        // A crash or a failed export: LibreOffice is restarted for the next job and this one is
        // retried once with a fresh one-shot process, which survives documents the warm one does not.
        logger.warn("warm LibreOffice failed during a conversion; retrying one-shot", { kind: outcome.kind, error: outcome.error });
        // Gone before the retry starts, so the slot never holds two LibreOffice processes.
        await slot.warm.terminate();
        return "fallback";
    }
  }

  async function convertInSlot(request: ConversionRequest, index: number): Promise<Buffer> {
    const env = await ready();
    const started = Date.now();
    const deadline = started + settings.timeoutMs;
    const jobDir = await mkdtemp(join(env.workDir, "jobs", "job-"));
    try {
      const job = await writeInput(request, jobDir);
      let output: Buffer | "fallback" = "fallback";
      let oneShotJob = job;
      if (warmUsable && env.python) {
        output = await runWarm(env, index, job, deadline);
        // A failed warm attempt can leave a partial output; the retry writes into a fresh folder so
        // readOutput can never take that leftover for the retry's result.
        if (output === "fallback") oneShotJob = await freshOutput(job, "retry");
      }
      if (output === "fallback") output = await runOneShot(env, index, oneShotJob, deadline);
      averageMs = averageMs * 0.8 + (Date.now() - started) * 0.2;
      return output;
    } finally {
      await rm(jobDir, { recursive: true, force: true });
    }
  }

  const self: LibreOfficeConverter = {
    async convert(request) {
      await ready();
      const index = await acquire();
      const job = convertInSlot(request, index);
      running.add(job);
      try {
        return await job;
      } finally {
        running.delete(job);
        release(index);
      }
    },

    async warm() {
      const env = await ready();
      if (!warmUsable || !env.python) return;
      // A tiny HTML document per slot brings each LibreOffice up and through one conversion.
      await Promise.all(slots.map(() => self.convert({ bytes: Buffer.from("<p>warm-up</p>"), from: "html", to: "pdf" })));
    },

    async close() {
      for (const waiter of waiting.splice(0)) {
        waiter.reject(new SignetError("SERVICE_UNAVAILABLE", "The converter is shutting down; retry in a moment.", { retryAfterSeconds: 5 }));
      }
      await Promise.allSettled([...running]);
      killAll();
      for (const slot of slots) delete slot.warm;
      const env = await setup?.catch(() => undefined);
      setup = undefined;
      warmUsable = settings.mode === "warm";
      startFailures = 0;
      process.off("exit", killAll);
      if (env && !settings.workDir) await rm(env.workDir, { recursive: true, force: true });
    },

    state() {
      const mode = setup === undefined ? "unknown" : warmUsable ? "warm" : "oneshot";
      return { mode, running: running.size, queued: waiting.length };
    },
  };
  return self;
}

/**
 * converter is the process-wide LibreOffice converter configured from config.conversion (sign,
 * annotate and convert share it). Importing it starts nothing; the first conversion or warm() does.
 */
export const converter: LibreOfficeConverter = createLibreOfficeConverter({
  ...(config.conversion.soffice ? { soffice: config.conversion.soffice } : {}),
  timeoutMs: config.conversion.timeoutMs,
  concurrency: config.conversion.concurrency,
  queueLength: config.conversion.queueLength,
  mode: config.conversion.mode,
});

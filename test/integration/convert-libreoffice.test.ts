// The LibreOffice converter against the real LibreOffice: output checked with poppler tools.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import PizZip from "pizzip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLibreOfficeConverter, type LibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { fixtureDocx, fixtureText, flatOdtText, libreOfficeFixtures, solidPng } from "#test/helpers/convert-fixtures.ts";
import { descendantsOf, processesMatching, stallingDriverPython, standInSoffice } from "#test/helpers/convert-runtime.ts";
import { pdfFonts, pdfImageRows, pdfMetadata, pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const root = mkdtempSync(join(tmpdir(), "signet-convert-it-"));
let warm: LibreOfficeConverter;
let produced: Awaited<ReturnType<typeof libreOfficeFixtures>>;

function save(name: string, bytes: Buffer): string {
  const path = join(root, name);
  writeFileSync(path, bytes);
  return path;
}

const text = (pdf: string) => pdfText(pdf, { layout: true });

function expectInOrder(haystack: string, needles: readonly string[]): void {
  let at = -1;
  for (const needle of needles) {
    const next = haystack.indexOf(needle, at + 1);
    expect(next, `"${needle}" after position ${at}`).toBeGreaterThan(at);
    at = next;
  }
}

// Four soffice runs one after another, each allowed 60 s by libreOfficeFixtures: the default hook
// time-out (120 s) ended this under load (the test at nice 15 beside three CPU burners).
beforeAll(async () => {
  warm = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 2, timeoutMs: 60_000, workDir: join(root, "warm") }));
  produced = await libreOfficeFixtures();
}, 300_000);

afterAll(async () => {
  await warm.close();
  rmSync(root, { recursive: true, force: true });
});

describe("LibreOffice converter, warm path", () => {
  it("converts the hand-written DOCX: text order, list, table, header/footer, image, Carlito embedded", async () => {
    const pdf = save("fixture.pdf", await warm.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }));
    expect(warm.state().mode).toBe("warm");
    const t = fixtureText;
    const content = await text(pdf);
    expectInOrder(content, [t.header, t.title, t.body, `1. ${t.list[0]}`, `2. ${t.list[1]}`, `3. ${t.list[2]}`, ...t.table.flat(), t.footer]);
    expect(await pdfPageCount(pdf)).toBe(1);
    const fontTable = await pdfFonts(pdf);
    expect(fontTable).toMatch(/\+Carlito\s+TrueType\s+\S+\s+yes/);
    expect(fontTable).not.toMatch(/DejaVu|Liberation/);
    const images = await pdfImageRows(pdf);
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/image\s+96\s+48/);
  });

  it.each(["docx", "doc", "odt", "rtf"] as const)("converts a LibreOffice-made %s: two pages, table order, Caladea", async (format) => {
    const pdf = save(`made-${format}.pdf`, await warm.convert({ bytes: produced[format], from: format, to: "pdf" }));
    expect(await pdfPageCount(pdf)).toBe(2);
    expectInOrder(await text(pdf), [flatOdtText.first, ...flatOdtText.cells, flatOdtText.second]);
    expect(await pdfFonts(pdf)).toMatch(/\+Caladea-Regular\s+TrueType\s+\S+\s+yes/);
  });

  it("exports PDF/A-2b when asked, and plain PDF otherwise", async () => {
    const pdfa = save("pdfa.pdf", await warm.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf", pdfa: true }));
    const meta = await pdfMetadata(pdfa);
    expect(meta).toMatch(/<pdfaid:part>2<\/pdfaid:part>/);
    expect(meta).toMatch(/<pdfaid:conformance>B<\/pdfaid:conformance>/);
    const plain = save("plain.pdf", await warm.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }));
    expect(await pdfMetadata(plain)).not.toMatch(/pdfaid/);
  });

  it("turns Markdown into a DOCX with its heading, list and table", async () => {
    const md = "# Delivery Terms\n\n1. Ship within **five** days\n2. Invoice monthly\n\n| Item | Price |\n|---|---|\n| Widget | 12.50 |\n";
    const docx = await warm.convert({ bytes: Buffer.from(md), from: "md", to: "docx" });
    const xml = new PizZip(docx).file("word/document.xml")!.asText();
    expectInOrder(xml, ["Delivery Terms", "Ship within", "five", "Invoice monthly", "Item", "Price", "Widget", "12.50"]);
    expect(xml).toContain("<w:tbl>");
    expect(xml).toMatch(/<w:numPr>/);
  });

  it("imports HTML without fetching anything it links to", async () => {
    let hits = 0;
    const server: Server = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { "content-type": "image/png" }).end(solidPng(4, 4));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const html = `<html><head><link rel="stylesheet" href="${base}/a.css"><style>@import url(${base}/b.css);</style></head>
<body background="${base}/bg.png"><h1>Invoice</h1><p style="background:url(${base}/c.png)">Total due</p>
<img src="${base}/logo.png" alt="Logo"><iframe src="${base}/frame"></iframe><img src="data:image/png;base64,${solidPng(8, 8).toString("base64")}"></body></html>`;
      const pdf = save("html.pdf", await warm.convert({ bytes: Buffer.from(html), from: "html", to: "pdf" }));
      const content = await text(pdf);
      expectInOrder(content, ["Invoice", "Total due", "[Logo]"]);
      expect(await pdfImageRows(pdf)).toHaveLength(1);
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });

  it("answers INVALID_DOCUMENT when LibreOffice cannot read a file that passed the content checks", async () => {
    const zip = new PizZip();
    zip.file("[Content_Types].xml", "<Types/>");
    zip.file("word/document.xml", "<w:document this is not XML");
    await expectSignetError(warm.convert({ bytes: zip.generate({ type: "nodebuffer" }), from: "docx", to: "pdf" }), "INVALID_DOCUMENT");
    // The warm instance survives a document it cannot read.
    expect(await text(save("after-invalid.pdf", await warm.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" })))).toContain(fixtureText.title);
  });

  it("runs 8 conversions truly at once (8 LibreOffice processes), all valid, none left after close", async () => {
    const before = new Set(descendantsOf(process.pid));
    const dir = join(root, "many");
    const many = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 8, queueLength: 8, timeoutMs: 120_000, workDir: dir }));
    // Sample the process table while the jobs run: soffice.bin processes started for this work folder.
    let peak = 0;
    const profiles = new Set<string>();
    const liveSoffice = () => {
      // "pid stat args": the executable itself, not a wrapper or driver that mentions it.
      const lines = processesMatching(dir).filter((line) => line.split(/\s+/)[2]?.endsWith("/soffice.bin"));
      for (const line of lines) profiles.add(/-env:UserInstallation=(\S+)/.exec(line)?.[1] ?? "none");
      // Count LibreOffice instances, not processes: soffice.bin may restart itself once with the
      // same arguments after creating its profile, so one slot can briefly show two processes.
      return new Set(lines.map((line) => /--accept=pipe,name=([^;]+);/.exec(line)?.[1] ?? line)).size;
    };
    const sampler = setInterval(() => {
      peak = Math.max(peak, liveSoffice());
    }, 100);
    try {
      const outputs = await Promise.all(
        Array.from({ length: 8 }, (_, i) => many.convert({ bytes: fixtureDocx({ title: `Concurrent document ${i}` }), from: "docx", to: "pdf" })),
      );
      peak = Math.max(peak, liveSoffice());
      for (const [i, pdf] of outputs.entries()) expect(await text(save(`many-${i}.pdf`, pdf))).toContain(`Concurrent document ${i}`);
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBeGreaterThan(2);
    expect(peak).toBeLessThanOrEqual(8);
    expect(profiles.size, "one private profile per LibreOffice").toBeGreaterThan(2);
    expect(profiles.has("none")).toBe(false);
    await many.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesMatching(dir)).toEqual([]);
    expect(descendantsOf(process.pid).filter((line) => !before.has(line))).toEqual([]);
  }, 300_000);

  it("refuses work beyond the queue with RATE_LIMIT_ERROR and a retry time", async () => {
    const small = createLibreOfficeConverter(officeOptions({ mode: "oneshot", concurrency: 1, queueLength: 1, workDir: join(root, "small") }));
    const jobs = [0, 1].map(() => small.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }));
    const error = await expectSignetError(small.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }), "RATE_LIMIT_ERROR");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await expect(Promise.all(jobs)).resolves.toHaveLength(2);
    await small.close();
  });
});

describe("LibreOffice profile template", () => {
  it("is made after the first conversion, copied into later instances' profiles, and replaced when stale", async () => {
    const template = join(root, "template", "profile");
    const first = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, workDir: join(root, "tpl-1"), profileTemplate: template }));
    save("tpl-1.pdf", await first.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }));
    await first.close(); // waits for the template
    expect(existsSync(join(template, "user"))).toBe(true);
    expect(readFileSync(join(template, "signet-settings.xcu"), "utf8")).toContain("DisableMacrosExecution");
    expect(processesMatching(template)).toEqual([]);

    // Started early (as on Lambda), the instance's profile is the template's copy: seeded settings included.
    const second = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, workDir: join(root, "tpl-2"), profileTemplate: template }));
    await second.startEarly(60_000);
    const profile = join(root, "tpl-2", "profiles", "warm-0");
    expect(existsSync(join(profile, "signet-settings.xcu"))).toBe(true);
    expect(readFileSync(join(profile, "user", "registrymodifications.xcu"), "utf8")).toMatch(/DisableMacrosExecution.*true/s);
    const pdf = save("tpl-2.pdf", await second.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }));
    expectInOrder(await text(pdf), [fixtureText.title]);
    await second.close();

    // Made with other settings (an older Signet): not copied, and made again.
    writeFileSync(join(template, "signet-settings.xcu"), "<older/>");
    const third = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, workDir: join(root, "tpl-3"), profileTemplate: template }));
    await third.startEarly(60_000);
    expect(existsSync(join(root, "tpl-3", "profiles", "warm-0", "signet-settings.xcu"))).toBe(false);
    await third.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" });
    await third.close();
    expect(readFileSync(join(template, "signet-settings.xcu"), "utf8")).toContain("DisableMacrosExecution");
  });

  it("seeds the settings into an instance started early even without a template", async () => {
    const early = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, workDir: join(root, "early") }));
    await early.startEarly(60_000);
    const registry = readFileSync(join(root, "early", "profiles", "warm-0", "user", "registrymodifications.xcu"), "utf8");
    await early.close();
    expect(registry).toMatch(/DisableMacrosExecution.*true/s);
  });
});

describe("LibreOffice converter, one-shot path and faults", () => {
  it("converts the fixture one-shot with the same result", async () => {
    const oneshot = createLibreOfficeConverter(officeOptions({ mode: "oneshot", concurrency: 1, workDir: join(root, "oneshot") }));
    const pdf = save("oneshot.pdf", await oneshot.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }));
    expect(oneshot.state().mode).toBe("oneshot");
    expectInOrder(await text(pdf), [fixtureText.header, fixtureText.title, ...fixtureText.table.flat(), fixtureText.footer]);
    expect(await pdfFonts(pdf)).toMatch(/\+Carlito\s+TrueType\s+\S+\s+yes/);
    await oneshot.close();
    expect(processesMatching(join(root, "oneshot"))).toEqual([]);
  });

  it("retries a job once one-shot when the warm LibreOffice crashes during it", async () => {
    // A stand-in UNO driver that reports the bridge crash LibreOffice produces on some documents.
    const driver = join(root, "crashing-python.sh");
    writeFileSync(
      driver,
      `#!/bin/sh\n[ "$1" = "-c" ] && exit 0\necho '{"event":"ready"}'\nread line\necho '{"ok":false,"kind":"crash","error":"DisposedException: Binary URP bridge disposed during call"}'\n`,
    );
    chmodSync(driver, 0o755);
    const crashing = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, python: driver, workDir: join(root, "crashing") }));
    const pdf = save("retried.pdf", await crashing.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }));
    expect(await text(pdf)).toContain(fixtureText.title);
    await crashing.close();
  });

  it("kills a LibreOffice that hangs (warm start) at the time-out: CONVERSION_TIMEOUT, nothing left", async () => {
    const marker = 4_000_000 + Math.floor(Math.random() * 1_000_000);
    const hanging = createLibreOfficeConverter(
      officeOptions({
        mode: "warm",
        concurrency: 1,
        timeoutMs: 1_500,
        soffice: standInSoffice(root, marker),
        workDir: join(root, "hang"),
      }),
    );
    // No bound on the time taken: the stand-in never ends, so only the kill answers (and the first
    // use also probes python and the isolation, which a loaded machine takes seconds for).
    const error = await expectSignetError(hanging.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }), "CONVERSION_TIMEOUT");
    expect(error.message).toMatch(/within 2 s/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesMatching(`sleep ${marker}`)).toEqual([]);
    await hanging.close();
  });

  it("kills a warm start the deadline cuts before the driver reported anything: nothing left", async () => {
    // The driver stalls right after it started soffice: only the converter's deadline ends it.
    const marker = 4_000_000 + Math.floor(Math.random() * 1_000_000);
    const started = join(root, "cut-started.txt");
    // Isolation off: the stand-in driver reports through a file of the test's folder, which a sandbox does not show.
    const cut = createLibreOfficeConverter(
      officeOptions({
        mode: "warm",
        concurrency: 1,
        timeoutMs: 5_000,
        isolation: "off",
        soffice: standInSoffice(root, marker),
        python: stallingDriverPython(root, started),
        workDir: join(root, "cut"),
      }),
    );
    await expectSignetError(cut.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }), "CONVERSION_TIMEOUT");
    expect(existsSync(started), "the driver started soffice before the deadline").toBe(true);
    expect(cut.state().mode).toBe("warm");
    // The slot's process is stopped, and gone, before the answer.
    expect(processesMatching(`sleep ${marker}`)).toEqual([]);
    await cut.close();
  });

  it("kills the real LibreOffice stuck on a document at the time-out, and recovers", async () => {
    // LibreOffice 7.4 waits forever for the bytes this RTF announces.
    // 10 s: the limit also covers bringing a fresh LibreOffice up after the kill, which a loaded
    // 2-core test machine has taken more than 4 s to do.
    const stuck = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, timeoutMs: 10_000, workDir: join(root, "stuck") }));
    await stuck.warm();
    await expectSignetError(
      stuck.convert({ bytes: Buffer.concat([Buffer.from("{\\rtf1 \\bin999999999 }"), Buffer.alloc(64, 0xff)]), from: "rtf", to: "pdf" }),
      "CONVERSION_TIMEOUT",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesMatching(join(root, "stuck"))).toEqual([]);
    expect(await text(save("after-stuck.pdf", await stuck.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" })))).toContain(fixtureText.title);
    await stuck.close();
  });

  it("answers SERVICE_UNAVAILABLE when there is no LibreOffice", async () => {
    const none = createLibreOfficeConverter(officeOptions({ soffice: join(root, "no-such-soffice") }));
    await expectSignetError(none.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }), "SERVICE_UNAVAILABLE");
  });

  it("passes no AWS credentials to LibreOffice", async () => {
    const probe = join(root, "env-probe.sh");
    const dump = join(root, "env.txt");
    writeFileSync(probe, `#!/bin/sh\nenv > ${dump}\nexit 1\n`);
    chmodSync(probe, 0o755);
    // Isolation off: the probe writes into the test's folder, which a sandbox does not show (the sandbox clears the environment itself: isolation.ts).
    const probing = createLibreOfficeConverter(
      officeOptions({
        mode: "oneshot",
        isolation: "off",
        soffice: probe,
        env: { ...process.env, AWS_SECRET_ACCESS_KEY: "secret", AWS_SESSION_TOKEN: "token", SIGNET_X: "y" },
        workDir: join(root, "probe"),
      }),
    );
    const error = await expectSignetError(probing.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" }), "CONVERSION_FAILED");
    expect(String(error.cause)).toMatch(/status 1/);
    const env = execFileSync("cat", [dump], { encoding: "utf8" });
    expect(env).not.toMatch(/AWS_|SIGNET_/);
    expect(env).toMatch(new RegExp(`^HOME=${join(root, "probe")}`, "m"));
  });
});

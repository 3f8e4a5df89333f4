import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * sofficeConvert converts a file with a one-shot LibreOffice that has its own profile folder, so
 * parallel test files never share one. Independent of the converter adapter on purpose: the tests
 * use it as an outside check of what Signet wrote.
 */
// soffice's --convert-to target per output extension (Office formats need the filter named).
const targets = {
  pdf: "pdf",
  docx: "docx:MS Word 2007 XML",
  xlsx: "xlsx:Calc MS Excel 2007 XML",
  xls: "xls:MS Excel 97",
  pptx: "pptx:Impress MS PowerPoint 2007 XML",
  ppt: "ppt:MS PowerPoint 97",
} as const;

export async function sofficeConvert(bytes: Uint8Array, fromExtension: string, to: keyof typeof targets): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "signet-annotate-office-"));
  try {
    const input = join(dir, `input.${fromExtension}`);
    await writeFile(input, bytes);
    const profile = pathToFileURL(join(dir, "profile")).href;
    const filter = targets[to];
    await run("soffice", [`-env:UserInstallation=${profile}`, "--headless", "--norestore", "--convert-to", filter, "--outdir", join(dir, "out"), input], {
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    });
    return await readFile(join(dir, "out", `input.${to}`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

let libreOfficeTemplate: Promise<Buffer> | undefined;

/** libreOfficeTemplateDocx is test/fixtures/annotate-template.fodt saved as DOCX by LibreOffice (made once per test file). */
export function libreOfficeTemplateDocx(): Promise<Buffer> {
  libreOfficeTemplate ??= readFile(new URL("../fixtures/annotate-template.fodt", import.meta.url)).then((fodt) => sofficeConvert(fodt, "fodt", "docx"));
  return libreOfficeTemplate;
}

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { config } from "#config";
import type { FontFiles, FontSource } from "#domain/pdf-text/fonts.ts";

/** FALLBACK_FONTS are tried in order after DejaVu and Droid Sans Fallback (assets/fonts/README.md). */
const FALLBACK_FONTS = ["NotoSansDevanagari-Regular.ttf", "NotoSansTamil-Regular.ttf", "NotoSansThai-Regular.ttf", "NotoEmoji-Regular.ttf"];

let files: FontFiles | undefined;

/**
 * extraFonts lists the .ttf files of SIGNET_EXTRA_FONTS_DIR in name order, each read only when a
 * page first needs a character the bundled fonts lack (HanaMinB is 30 MB: a Latin page never reads it).
 */
export function extraFonts(dir: string | undefined): FontSource[] {
  if (!dir) return [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.toLowerCase().endsWith(".ttf"));
  } catch (error) {
    throw new Error(
      `Configuration error: SIGNET_EXTRA_FONTS_DIR "${dir}" cannot be read (${(error as NodeJS.ErrnoException).code}): point it at a folder of .ttf files or unset it`,
    );
  }
  return names.sort().map((name) => {
    let data: Uint8Array | undefined;
    return () => (data ??= readFileSync(join(dir, name)));
  });
}

/** fontFiles reads the certificate page's fonts from SIGNET_FONTS_DIR (assets/fonts) once per container, plus SIGNET_EXTRA_FONTS_DIR's on demand. */
export function fontFiles(): FontFiles {
  files ??= {
    regular: readFileSync(join(config.signing.fontsDir, "DejaVuSans.ttf")),
    bold: readFileSync(join(config.signing.fontsDir, "DejaVuSans-Bold.ttf")),
    mono: readFileSync(join(config.signing.fontsDir, "DejaVuSansMono.ttf")),
    cjk: readFileSync(join(config.signing.fontsDir, "DroidSansFallback.ttf")),
    fallbacks: [...FALLBACK_FONTS.map((name) => readFileSync(join(config.signing.fontsDir, name))), ...extraFonts(config.signing.extraFontsDir)],
  };
  return files;
}

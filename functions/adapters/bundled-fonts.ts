import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FontFiles, FontSource } from "#domain/pdf-text/fonts.ts";

/** FALLBACK_FONTS are tried in order after DejaVu and Droid Sans Fallback (assets/fonts/README.md). */
const FALLBACK_FONTS = ["NotoSansDevanagari-Regular.ttf", "NotoSansTamil-Regular.ttf", "NotoSansThai-Regular.ttf", "NotoEmoji-Regular.ttf"];

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

/** BundledFontsOptions say where the fonts are: SIGNET_FONTS_DIR (assets/fonts) and SIGNET_EXTRA_FONTS_DIR. */
export interface BundledFontsOptions {
  fontsDir: string;
  extraFontsDir?: string | undefined;
}

/**
 * bundledFonts returns the certificate page's font source: the bundled fonts of fontsDir, read on
 * the first call and kept, plus extraFontsDir's, each read on demand.
 */
export function bundledFonts(options: BundledFontsOptions): () => FontFiles {
  let files: FontFiles | undefined;
  const read = (name: string) => readFileSync(join(options.fontsDir, name));
  return () => {
    files ??= {
      regular: read("DejaVuSans.ttf"),
      bold: read("DejaVuSans-Bold.ttf"),
      mono: read("DejaVuSansMono.ttf"),
      cjk: read("DroidSansFallback.ttf"),
      fallbacks: [...FALLBACK_FONTS.map(read), ...extraFonts(options.extraFontsDir)],
    };
    return files;
  };
}

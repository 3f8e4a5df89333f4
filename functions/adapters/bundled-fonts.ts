import { readFileSync } from "node:fs";
import { join } from "node:path";
import { config } from "#config";
import type { FontFiles } from "#domain/signing/pdf-text.ts";

/** FALLBACK_FONTS are tried in order after DejaVu and Droid Sans Fallback (assets/fonts/README.md). */
const FALLBACK_FONTS = ["NotoSansDevanagari-Regular.ttf", "NotoSansTamil-Regular.ttf", "NotoSansThai-Regular.ttf", "NotoEmoji-Regular.ttf"];

let files: FontFiles | undefined;

/** fontFiles reads the certificate page's fonts from SIGNET_FONTS_DIR (assets/fonts) once per container. */
export function fontFiles(): FontFiles {
  files ??= {
    regular: readFileSync(join(config.signing.fontsDir, "DejaVuSans.ttf")),
    bold: readFileSync(join(config.signing.fontsDir, "DejaVuSans-Bold.ttf")),
    mono: readFileSync(join(config.signing.fontsDir, "DejaVuSansMono.ttf")),
    cjk: readFileSync(join(config.signing.fontsDir, "DroidSansFallback.ttf")),
    fallbacks: FALLBACK_FONTS.map((name) => readFileSync(join(config.signing.fontsDir, name))),
  };
  return files;
}

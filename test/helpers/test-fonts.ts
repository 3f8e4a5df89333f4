import { readFileSync } from "node:fs";
import { settings } from "#config";
import { extraFonts } from "#adapters/bundled-fonts.ts";
import type { FontFiles } from "#domain/pdf-text/fonts.ts";

let fonts: FontFiles | undefined;

/** testFonts reads the bundled certificate fonts straight from assets/fonts, plus SIGNET_EXTRA_FONTS_DIR's (HanaMinB locally), once. */
export function testFonts(): FontFiles {
  const dir = new URL("../../assets/fonts/", import.meta.url);
  fonts ??= {
    regular: readFileSync(new URL("DejaVuSans.ttf", dir)),
    bold: readFileSync(new URL("DejaVuSans-Bold.ttf", dir)),
    mono: readFileSync(new URL("DejaVuSansMono.ttf", dir)),
    cjk: readFileSync(new URL("DroidSansFallback.ttf", dir)),
    fallbacks: [
      ...["NotoSansDevanagari-Regular.ttf", "NotoSansTamil-Regular.ttf", "NotoSansThai-Regular.ttf", "NotoEmoji-Regular.ttf"].map((name) =>
        readFileSync(new URL(name, dir)),
      ),
      ...extraFonts(settings.signing.extraFontsDir.read(process.env, "local")),
    ],
  };
  return fonts;
}

import { readFileSync } from "node:fs";
import { Resvg, initWasm } from "@resvg/resvg-wasm";
import { PictureDecodeError, type SvgRenderer } from "#domain/docx/picture-formats.ts";

/** RESVG_WASM is resvg's WebAssembly: its name beside a bundle and its path in the package. */
export const RESVG_WASM = { file: "resvg.wasm", module: "@resvg/resvg-wasm/index_bg.wasm" } as const;

/** ResvgOptions say where resvg's WebAssembly is and which fonts draw SVG text. */
export interface ResvgOptions {
  /** Path of @resvg/resvg-wasm's index_bg.wasm (beside the bundle on Lambda). */
  wasmPath: string;
  /** TrueType fonts for <text>; the WebAssembly build sees no system fonts, so text without them is not drawn. */
  fonts?: () => Uint8Array[];
}

// initWasm sets up one module-wide instance; a second call throws. One promise per process.
let ready: Promise<void> | undefined;

/**
 * ResvgSvgRenderer draws SVG with resvg compiled to WebAssembly: no platform binary, and no file
 * or network access at all (a WebAssembly module has none; images it would resolve are only
 * listed, never loaded). Errors parsing the SVG become PictureDecodeError.
 */
export class ResvgSvgRenderer implements SvgRenderer {
  private fontBuffers: Uint8Array[] | undefined;

  constructor(private readonly options: ResvgOptions) {}

  /** size is the SVG's own size as resvg reads its width, height and viewBox. */
  async size(svg: string): Promise<{ width: number; height: number }> {
    return this.with(svg, undefined, (resvg) => ({ width: resvg.width, height: resvg.height }));
  }

  /** renderPng draws the SVG `width` px wide as a PNG. */
  async renderPng(svg: string, width: number): Promise<Uint8Array> {
    return this.with(svg, width, (resvg) => {
      const image = resvg.render();
      try {
        return image.asPng();
      } finally {
        image.free();
      }
    });
  }

  private async with<T>(svg: string, width: number | undefined, use: (resvg: InstanceType<typeof Resvg>) => T): Promise<T> {
    ready ??= initWasm(readFileSync(this.options.wasmPath));
    await ready;
    this.fontBuffers ??= this.options.fonts?.() ?? [];
    let resvg: InstanceType<typeof Resvg>;
    try {
      resvg = new Resvg(svg, {
        font: { fontBuffers: this.fontBuffers, defaultFontFamily: "DejaVu Sans", sansSerifFamily: "DejaVu Sans" },
        ...(width ? { fitTo: { mode: "width", value: width } } : {}),
      });
    } catch (error) {
      throw new PictureDecodeError(`resvg cannot read the SVG: ${String(error)}`, { cause: error });
    }
    try {
      return use(resvg);
    } finally {
      resvg.free();
    }
  }
}

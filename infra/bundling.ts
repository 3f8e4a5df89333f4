import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Charset, OutputFormat, SourceMapMode, type BundlingOptions } from "aws-cdk-lib/aws-lambda-nodejs";
import { buildSync } from "esbuild";

/** repoRoot is the folder holding package.json, package-lock.json and functions/. */
export const repoRoot = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

// ESM output still meets CommonJS dependencies that call require() (busboy, pizzip...):
// give the module scope a real require. Named so it cannot collide with bundled identifiers.
const requireBanner = 'import { createRequire as __signetCreateRequire } from "node:module"; const require = __signetCreateRequire(import.meta.url);';

/**
 * esbuildSettings are the one set of bundling choices every function gets, zip or image:
 * ESM for Node 22, minified with linked source maps, "module" entry points preferred.
 * The AWS SDK v3 is bundled, not taken from the runtime: the version that passed the tests against
 * the local stand-ins is the version that runs, and tree-shaken clients load faster than the
 * runtime's full copies.
 */
export const esbuildSettings = {
  target: "node22",
  mainFields: ["module", "main"],
  banner: requireBanner,
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  external: [] as string[],
} as const;

/** RuntimeFile is a file or folder a function reads at run time, copied beside its bundle. */
export interface RuntimeFile {
  /** Path from the repository root. */
  from: string;
  /** Path inside the bundle folder (next to index.mjs, the Lambda task root). */
  to: string;
}

/**
 * nodejsBundling maps esbuildSettings onto NodejsFunction's options. Bundling runs the esbuild
 * of node_modules on this machine; it never falls back to Docker.
 */
export function nodejsBundling(files: readonly RuntimeFile[] = []): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: esbuildSettings.target,
    mainFields: [...esbuildSettings.mainFields],
    banner: esbuildSettings.banner,
    minify: esbuildSettings.minify,
    sourceMap: esbuildSettings.sourcemap,
    sourceMapMode: SourceMapMode.DEFAULT,
    sourcesContent: esbuildSettings.sourcesContent,
    externalModules: [...esbuildSettings.external],
    charset: Charset.UTF8,
    forceDockerBundling: false,
    // Files the code reads at run time (fonts, the API reference UI) travel next to index.mjs.
    ...(files.length > 0
      ? {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir: string, outputDir: string) => files.map((file) => `cp -R "${join(inputDir, file.from)}" "${join(outputDir, file.to)}"`),
          },
        }
      : {}),
  };
}

/**
 * bundleForImage bundles entry files with the same settings into `outDir` (one <name>.mjs each,
 * plus their run-time files) for the LibreOffice container image, whose Dockerfile copies them into
 * the Lambda task root. Runs at synth time with the local esbuild; Docker only runs at deploy.
 */
export function bundleForImage(names: readonly string[], outDir: string, files: readonly RuntimeFile[] = []): void {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  buildSync({
    absWorkingDir: repoRoot,
    entryPoints: Object.fromEntries(names.map((name) => [name, join(repoRoot, "functions", `${name}.ts`)])),
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: esbuildSettings.target,
    mainFields: [...esbuildSettings.mainFields],
    banner: { js: esbuildSettings.banner },
    minify: esbuildSettings.minify,
    sourcemap: esbuildSettings.sourcemap,
    sourcesContent: esbuildSettings.sourcesContent,
    external: [...esbuildSettings.external],
    charset: "utf8",
    logLevel: "warning",
  });
  for (const file of files) {
    const source = join(repoRoot, file.from);
    if (!existsSync(source)) throw new Error(`${file.from} is missing: a bundled function reads it at run time`);
    cpSync(source, join(outDir, file.to), { recursive: true });
  }
}

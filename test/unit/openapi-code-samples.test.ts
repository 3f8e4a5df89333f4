import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "#http/openapi.ts";
import { routes } from "#http/routes.ts";
import { repoRoot } from "../../infra/bundling.ts";
import { generatedModule, renderSampleModule, sampleExtensions } from "../../scripts/code-samples.ts";

// The code samples are files (docs/samples/<route>.{sh,mjs,py}); the bundles carry them through a
// generated module. test/integration/openapi-code-samples.test.ts lints and runs the files.
describe("docs/samples", () => {
  it("holds the three samples of every route and nothing else besides its README", () => {
    const want = routes.flatMap((route) => sampleExtensions.map((extension) => `${route.name}.${extension}`));
    expect(readdirSync(join(repoRoot, "docs", "samples")).sort()).toEqual([...want, "README.md"].sort());
  });

  it(`is what ${generatedModule} holds (npm run samples:build)`, () => {
    expect(readFileSync(join(repoRoot, generatedModule), "utf8"), "stale: run npm run samples:build").toBe(renderSampleModule());
  });

  it("gives every operation of the OpenAPI document its files as x-codeSamples", () => {
    const paths = openApiDocument("0.0.0-test").paths as Record<string, Record<string, { "x-codeSamples": Array<{ label: string; source: string }> }>>;
    for (const route of routes) {
      const samples = paths[route.path]![route.method.toLowerCase()]!["x-codeSamples"];
      const file = (extension: string) => readFileSync(join(repoRoot, "docs", "samples", `${route.name}.${extension}`), "utf8").replace(/\n$/, "");
      expect(samples, route.name).toEqual([
        { lang: "Shell", label: "curl", source: file("sh") },
        { lang: "JavaScript", label: "fetch", source: file("mjs") },
        { lang: "Python", label: "requests", source: file("py") },
      ]);
    }
  });
});

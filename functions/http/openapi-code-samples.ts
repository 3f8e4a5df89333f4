// Hand-written request samples for every operation (OpenAPI `x-codeSamples`): curl, JavaScript
// fetch (Node 20+, ES module) and Python requests. The reference page shows these instead of
// generated snippets, which got multipart wrong. They are the files docs/samples/<route>.{sh,mjs,py}
// (inlined by `npm run samples:build` into code-samples.generated.ts, so every bundle carries them);
// test/integration/openapi-code-samples.test.ts lints and runs them against a local server.
import { sampleFiles } from "#http/code-samples.generated.ts";
import type { RouteName } from "#http/routes.ts";

/** CodeSample is one entry of an operation's `x-codeSamples`, as Scalar and Redoc read it. */
export interface CodeSample {
  lang: "Shell" | "JavaScript" | "Python";
  label: "curl" | "fetch" | "requests";
  source: string;
}

/** codeSamplesOf is a route's samples, in the order the reference page lists them. */
export function codeSamplesOf(route: RouteName): CodeSample[] {
  const files = sampleFiles[route];
  return [
    { lang: "Shell", label: "curl", source: files.sh },
    { lang: "JavaScript", label: "fetch", source: files.mjs },
    { lang: "Python", label: "requests", source: files.py },
  ];
}

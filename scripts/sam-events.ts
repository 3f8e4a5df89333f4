// npm run sam:events
// Lists, per Lambda function of the stack, its logical id (what `sam local invoke` takes) and the
// sample events in events/ for it, with the command that runs it. The image functions (sign,
// annotate, convert) stream their answers: SAM prints the raw stream (docs/aws.md, "Trying a
// function with SAM").
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { routes } from "#http/routes.ts";
import { repoRoot } from "../infra/bundling.ts";
import { functionLogicalId } from "../infra/signet-stack.ts";

/** SamEvents is one function's sample events, and whether its answer streams. */
interface SamEvents {
  name: string;
  logicalId: string;
  events: string[];
  streaming: boolean;
}

/** samEvents maps every function to its events: events/<name>.json, and for the fallback its 404, 405 and preflight events. */
export function samEvents(files: string[] = readdirSync(join(repoRoot, "events"))): SamEvents[] {
  const names = [...routes.map((route) => route.name), "authorizer", "fallback"];
  return names.map((name) => ({
    name,
    logicalId: functionLogicalId(name),
    events: files
      .filter((file) => file === `${name}.json` || (name === "fallback" && (file.startsWith("fallback-") || file === "options-preflight.json")))
      .map((file) => `events/${file}`)
      .sort(),
    streaming: routes.some((route) => route.name === name && route.streaming === true),
  }));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  // Every route's function is a zip now (LibreOffice runs in the office function): all from the synthesized template.
  for (const { logicalId, events, streaming } of samEvents()) {
    for (const event of events) {
      process.stdout.write(
        `sam local invoke -t cdk.out/Signet.template.json ${logicalId} -e ${event}${streaming ? "   # streams: prelude JSON, 8 NUL bytes, body" : ""}\n`,
      );
    }
  }
}

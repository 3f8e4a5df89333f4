import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * unoDriverPath is where uno-driver.py (the python3 program that keeps one LibreOffice running and
 * converts over UNO; its protocol is described at its top) is at run time: beside this module in
 * the source tree, and beside the bundle (the Lambda task root) when bundled, where infra copies it
 * (infra/signet-stack.ts runtimeFiles). Undefined when it is missing: the converter then runs one-shot.
 */
export function unoDriverPath(): string | undefined {
  const path = fileURLToPath(new URL("./uno-driver.py", import.meta.url));
  return existsSync(path) ? path : undefined;
}

// check-function-length fails when a function body is longer than MAX_LINES lines (npm run check).
// Long functions hide objects: their state belongs in a class or in named helpers.
// Not counted: the callbacks of describe/it/test (a test file's sections), and the data tables listed in
// DATA_TABLES, whose length is their content.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

const MAX_LINES = 80;

/** DATA_TABLES are functions that only build a table of cases or settings: "file:function". */
const DATA_TABLES = new Set<string>([
  // Every way a document can make LibreOffice reach out, one entry per vector (the office-network tests).
  "test/helpers/office-vectors.ts:vectors",
]);

const TEST_BLOCKS = new Set(["describe", "it", "test", "beforeAll", "afterAll", "beforeEach", "afterEach"]);

/** calleeName is the base name of a call (`describe`, `it.each(...)`, `describe.skipIf(x)` all count). */
function calleeName(expression: ts.Expression): string {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return calleeName(expression.expression);
  if (ts.isCallExpression(expression)) return calleeName(expression.expression);
  return "";
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return "(anonymous)";
}

function isTestBlock(node: ts.Node): boolean {
  return ts.isCallExpression(node.parent) && TEST_BLOCKS.has(calleeName(node.parent.expression));
}

/** longFunctions lists "file:line name (N lines)" for every function body over MAX_LINES in one file. */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body && !isTestBlock(node)) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(node.body.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.body.getEnd()).line;
      const name = functionName(fn);
      if (last - first + 1 > MAX_LINES && !DATA_TABLES.has(`${file}:${name}`)) found.push(`${file}:${first + 1} ${name} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = execFileSync("git", ["ls-files", "*.ts", "*.mts", "*.mjs"], { encoding: "utf8" })
  .split("\n")
  .filter((file) => file !== "" && !file.endsWith(".d.ts"));
const found = files.flatMap(longFunctions);
if (found.length > 0) {
  process.stderr.write(
    `Functions longer than ${MAX_LINES} lines (split them into named helpers or a class):\n${found.map((line) => `  ${line}`).join("\n")}\n`,
  );
  process.exit(1);
}
process.stdout.write(`check-function-length: ${files.length} files, no function over ${MAX_LINES} lines\n`);

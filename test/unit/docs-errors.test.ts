// docs/errors.md must list exactly the codes of the error table, each with the table's status and
// a "when" and a "how to fix" column, so the documentation cannot drift from the code.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorTable } from "#http/error-table.ts";

interface DocRow {
  code: string;
  status: number;
  when: string;
  fix: string;
}

/** documentedErrors reads the rows of the table in docs/errors.md: | `CODE` | status | when | how to fix |. */
function documentedErrors(markdown: string): DocRow[] {
  return markdown
    .split("\n")
    .filter((line) => /^\| `[A-Z_]+` \|/.test(line))
    .map((line) => {
      const cells = line.split(" | ").map((cell) => cell.replace(/^\| ?| ?\|$/g, "").trim());
      return { code: cells[0]!.replace(/`/g, ""), status: Number(cells[1]), when: cells[2] ?? "", fix: cells[3] ?? "" };
    });
}

const rows = documentedErrors(readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8"));

describe("docs/errors.md", () => {
  it("lists every code of the error table once, and no other", () => {
    expect(rows.map((row) => row.code).sort()).toEqual(Object.keys(errorTable).sort());
    expect(new Set(rows.map((row) => row.code)).size).toBe(rows.length);
  });

  it.each(Object.entries(errorTable))("%s has the table's status and says when and how to fix", (code, entry) => {
    const row = rows.find((candidate) => candidate.code === code);
    expect(row, `${code} is missing from docs/errors.md`).toBeDefined();
    expect(row!.status).toBe(entry.status);
    expect(row!.when.length).toBeGreaterThan(10);
    expect(row!.fix.length).toBeGreaterThan(10);
  });
});

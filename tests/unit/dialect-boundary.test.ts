import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listProjectFiles } from "../support/outside-paths";

/**
 * lib/db/ is the only folder that knows which database this is: a statement spelled per database lives in
 * lib/db/statements/, "one instance or several" is lib/topology's question, and "is there a database file?" is
 * lib/db's sqliteFileOf. The import rules keep lib/db/dialect.ts inside lib/db/; this keeps its two questions
 * (the dialect of the running app, the dialect of a URL) from being asked anywhere else, scripts and tests included.
 */
const root = path.resolve(import.meta.dirname, "..", "..");
// Built from parts, so that this file does not contain what it looks for.
const ASKS_THE_DIALECT = new RegExp(`\\b(${["get", "Dialect"].join("")}|${["database", "Dialect"].join("")})\\b`);

function filesAskingTheDialect(): string[] {
  return listProjectFiles(root)
    .filter((file) => /\.(ts|tsx|mjs|cjs|js)$/.test(file))
    .map((file) => path.relative(root, file))
    .filter((file) => !file.startsWith(`lib${path.sep}db${path.sep}`))
    .filter((file) => ASKS_THE_DIALECT.test(fs.readFileSync(path.join(root, file), "utf8")));
}

describe("only lib/db/ knows the dialect", () => {
  it("no module outside lib/db/ asks which database this is", () => {
    expect(filesAskingTheDialect()).toEqual([]);
  });

  it("the check finds a question where there is one", () => {
    expect(ASKS_THE_DIALECT.test(`if (${["get", "Dialect"].join("")}() === "sqlite") return;`)).toBe(true);
    expect(ASKS_THE_DIALECT.test(`${["database", "Dialect"].join("")}(env.DATABASE_URL)`)).toBe(true);
    expect(ASKS_THE_DIALECT.test("const file = sqliteFileOf(env.DATABASE_URL);")).toBe(false);
  });
});

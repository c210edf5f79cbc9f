import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findOutsidePaths, listProjectFiles, scanFile } from "../support/outside-paths";

const root = path.resolve(import.meta.dirname, "..", "..");

describe("the repository stands alone", () => {
  it("no source, test, configuration or documentation file points outside the repository", () => {
    const files = listProjectFiles(root);
    // The scan covers the support files and the documentation, where such paths hide.
    expect(files).toContain(path.join(root, "tests", "support", "bcv-server.ts"));
    expect(files).toContain(path.join(root, "README.md"));
    expect(files.length).toBeGreaterThan(100);
    expect(findOutsidePaths(root, files)).toEqual([]);
  });

  it("the central bank's fixture page is in the repository", () => {
    const page = fs.readFileSync(path.join(root, "tests", "fixtures", "bcv-home.sample.html"), "utf8");
    expect(page).toContain('id="dolar"');
  });

  describe("the check itself", () => {
    const file = path.join(root, "tests", "support", "example.ts");
    const reasons = (text: string) => scanFile(root, file, text).map((found) => found.reason);
    // The examples are built at run time, so that this file does not contain the paths it looks for.
    const up = (levels: number) => "../".repeat(levels);
    const resolve = (...args: string[]) => `path.resolve(${args.join(", ")})`;
    const dots = (levels: number) => Array<string>(levels).fill('".."');

    it("finds a folder beside the repository reached through a constant", () => {
      const text = [
        `const projectRoot = ${resolve("import.meta.dirname", ...dots(2))};`,
        `export const PAGE = ${resolve("projectRoot", ...dots(1), '"other"', '"page.html"')};`,
      ].join("\n");
      expect(scanFile(root, file, text)).toMatchObject([{ line: 2, reason: expect.stringContaining("outside") }]);
    });

    it("finds climbing from the file's folder, the working directory or a relative literal", () => {
      expect(reasons(`fs.readFileSync(path.join(__dirname, "${up(3)}x.txt"))`)).toHaveLength(1);
      expect(reasons(resolve("path.dirname(fileURLToPath(import.meta.url))", ...dots(3)))).toHaveLength(1);
      expect(reasons(resolve("process.cwd()", ...dots(1), '"fixtures"'))).toHaveLength(1);
      expect(reasons(`import data from "${up(3)}data.json";`)).toHaveLength(1);
      expect(reasons(`const p = "${up(2)}shared/x";`)).toHaveLength(1);
    });

    it("lets paths inside the repository through", () => {
      expect(reasons('path.resolve(import.meta.dirname, "..", "fixtures", "page.html")')).toEqual([]);
      expect(reasons('const r = path.resolve(import.meta.dirname, "..", ".."); path.join(r, "data", name)')).toEqual(
        [],
      );
      expect(reasons('import { x } from "../../lib/server/env";')).toEqual([]);
    });

    it("finds relative links out of the repository in documentation", () => {
      const readme = path.join(root, "README.md");
      expect(scanFile(root, readme, "See [style](../STYLE.md).")).toHaveLength(1);
      expect(scanFile(root, readme, "See [tests](./tests/fixtures).")).toEqual([]);
    });
  });
});

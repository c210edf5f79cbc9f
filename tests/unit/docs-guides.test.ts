import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The README is a page and the guides live in docs/: the README keeps the two commands on its first lines, stays
 * short, and every relative link of the README and the guides leads to a file and a heading that exist.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const documents = [
  "README.md",
  ...fs
    .readdirSync(path.join(projectRoot, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => path.join("docs", file)),
];
const read = (file: string) => fs.readFileSync(path.join(projectRoot, file), "utf8");

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces as dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replaceAll(" ", "-");
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of read(file).split("\n")) {
    if (line.startsWith("```")) inFence = !inFence;
    else if (!inFence && /^#{1,6} /.test(line)) anchors.add(anchorOf(line.replace(/^#+ /, "")));
  }
  return anchors;
}

describe("the README", () => {
  const readme = read("README.md");

  it("starts with the two commands and stays a page", () => {
    expect(readme.split("\n").slice(2, 6)).toEqual([
      "```sh",
      "npm ci && npm run build && npm start    # runs the application: http://localhost:3000 (SQLite in ./data)",
      "npm ci && npm test                      # runs every check: lint, build, unit, integration (SQLite and PostgreSQL), end-to-end",
      "```",
    ]);
    expect(readme.split("\n").length).toBeLessThanOrEqual(150);
  });

  it("links every guide of docs/", () => {
    for (const guide of documents.filter((file) => file !== "README.md")) {
      expect(readme, guide).toContain(`](${guide})`);
    }
  });
});

describe("the links of the README and the guides", () => {
  it.each(documents)("%s: every relative link leads to a file and a heading that exist", (file) => {
    const broken: string[] = [];
    for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [linked, anchor] = target.split("#");
      const resolved = linked ? path.join(path.dirname(file), linked) : file;
      if (!fs.existsSync(path.join(projectRoot, resolved))) broken.push(`${target}: no such file`);
      else if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) {
        broken.push(`${target}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});

import fs from "node:fs";
import path from "node:path";

/**
 * Finds paths in the project's own files that point outside the repository: a fresh clone has nothing beside
 * it, so such a path works only on the machine where it was written. Static on purpose: it checks
 * every file, including code paths a test run never takes.
 */

export interface OutsidePath {
  /** Relative to the repository root. */
  file: string;
  line: number;
  text: string;
  reason: string;
}

/** Generated, installed or runtime folders: not the project's source. */
const SKIPPED_FOLDERS = new Set([
  ".git",
  "node_modules",
  ".next",
  "data",
  "test-results",
  "playwright-report",
  "bench-results",
]);
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const TEXT = /\.(md|ya?ml|json|prisma|sh|css|html)$|^\.?[A-Za-z-]+$/;
const SKIPPED_FILES = new Set(["package-lock.json"]);

/** Every source, test, documentation and configuration file of the repository. */
export function listProjectFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(full);
      } else if (entry.isFile() && !SKIPPED_FILES.has(entry.name) && (CODE.test(entry.name) || TEXT.test(entry.name))) {
        files.push(full);
      }
    }
  };
  walk(root);
  return files;
}

export function findOutsidePaths(root: string, files = listProjectFiles(root)): OutsidePath[] {
  return files.flatMap((file) => scanFile(root, file, fs.readFileSync(file, "utf8")));
}

/** The checks for one file's text; `file` is its absolute path inside `root`. */
export function scanFile(root: string, file: string, text: string): OutsidePath[] {
  const found: OutsidePath[] = [];
  const folder = path.dirname(file);
  const isInside = (target: string) => {
    const relative = path.relative(root, target);
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  };
  const report = (index: number, reason: string) => {
    const line = text.slice(0, index).split("\n").length;
    // One finding per line is enough to point at it.
    if (found.some((earlier) => earlier.line === line)) return;
    found.push({ file: path.relative(root, file), line, text: text.split("\n")[line - 1].trim(), reason });
  };

  // The workspace folder this project was first written in, by name, in any file.
  for (const match of text.matchAll(/\.\.[\\/]+shared\b/g))
    report(match.index, "names the shared folder beside the repository");

  if (CODE.test(file)) {
    // Relative string literals ("../x", "./x"): module specifiers and file paths next to the source.
    for (const match of text.matchAll(/(["'`])(\.\.?\/[^"'`\s]*)\1/g)) {
      if (!isInside(path.resolve(folder, match[2]))) report(match.index, `"${match[2]}" leaves the repository`);
    }
    // path.resolve/join chains from a known folder: the file's own folder, the working directory (the
    // repository root when npm runs a script), or a constant built from one of these earlier in the file.
    const anchors = new Map<string, string>([
      ["import.meta.dirname", folder],
      ["__dirname", folder],
      ["path.dirname(fileURLToPath(import.meta.url))", folder],
      ["process.cwd()", root],
    ]);
    for (const match of text.matchAll(/(?:(?:const|let)\s+(\w+)\s*=\s*)?path\.(?:resolve|join)\(/g)) {
      const name = match[1];
      const args = splitArguments(text.slice(match.index + match[0].length));
      const base = anchors.get(args[0]);
      if (base === undefined) continue;
      const literals = args.slice(1).map((arg) => /^(["'])(.*)\1$/.exec(arg)?.[2]);
      // Only the literal prefix is known statically; a variable part cannot climb with "..".
      const firstVariable = literals.indexOf(undefined);
      const known = (firstVariable === -1 ? literals : literals.slice(0, firstVariable)) as string[];
      const target = path.resolve(base, ...known);
      if (!isInside(target)) report(match.index, `path from ${args[0]} resolves outside the repository`);
      else if (name && firstVariable === -1) anchors.set(name, target);
    }
  } else if (file.endsWith(".md")) {
    // Relative links in documentation.
    for (const match of text.matchAll(/\]\((\.\.?\/[^)\s#]*)|`(\.\.\/[^`\s]*)`/g)) {
      const link = match[1] ?? match[2];
      if (!isInside(path.resolve(folder, link))) report(match.index, `"${link}" leaves the repository`);
    }
  }
  return found;
}

/** The top-level arguments of a call whose text starts right after its "(", trimmed. */
function splitArguments(source: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of source) {
    if (char === "(" || char === "[" || char === "{") depth++;
    if (char === ")" || char === "]" || char === "}") {
      if (depth === 0) break;
      depth--;
    }
    if (char === "," && depth === 0) {
      args.push(current.trim());
      current = "";
    } else current += char;
  }
  if (current.trim()) args.push(current.trim());
  return args;
}

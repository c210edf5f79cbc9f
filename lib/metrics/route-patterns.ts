import fs from "node:fs";
import path from "node:path";
import { processWide } from "../server/process-wide";

/**
 * The route pattern a request path answers under ("/builds/[build_id]/logs"), the label of the request metrics:
 * a path itself would make one series per build and let any client grow the registry without end. The patterns
 * are the app's route handlers as Next's build lists them (.next/server/app-paths-manifest.json), so none is
 * written twice; a path that matches none counts as "unmatched". Static segments win over dynamic ones, and
 * dynamic ones over catch-alls, as Next routes them.
 */
interface Pattern {
  name: string;
  segments: string[];
}

const globalForPatterns = processWide<{ routePatterns?: Pattern[]; patternOfPath?: Map<string, string> }>(
  "routePatterns",
  () => ({}),
);

/** Paths remembered with their pattern: enough for the paths a server is asked again and again, and bounded. */
const REMEMBERED_PATHS = 1024;

function loadPatterns(): Pattern[] {
  let manifest: Record<string, string>;
  try {
    const file = path.join(/*turbopackIgnore: true*/ process.cwd(), ".next", "server", "app-paths-manifest.json");
    manifest = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, string>;
  } catch {
    manifest = {};
  }
  return Object.keys(manifest)
    .filter((key) => key.endsWith("/route"))
    .map((key) => key.slice(0, -"/route".length) || "/")
    .map((name) => ({ name, segments: name.split("/").filter(Boolean) }))
    .sort((a, b) => rank(a) - rank(b));
}

/** Patterns with more static segments first, catch-alls last. */
function rank(pattern: Pattern): number {
  return pattern.segments.reduce(
    (sum, segment) => sum + (segment.startsWith("[...") ? 100 : segment.startsWith("[") ? 1 : 0),
    0,
  );
}

function matches(pattern: Pattern, segments: string[]): boolean {
  for (let i = 0; i < pattern.segments.length; i++) {
    const expected = pattern.segments[i];
    if (expected.startsWith("[...")) return segments.length > i;
    if (i >= segments.length) return false;
    if (!expected.startsWith("[") && expected !== segments[i]) return false;
  }
  return segments.length === pattern.segments.length;
}

export function routePatternOf(pathname: string): string {
  const remembered = (globalForPatterns.patternOfPath ??= new Map());
  let name = remembered.get(pathname);
  if (name === undefined) {
    globalForPatterns.routePatterns ??= loadPatterns();
    const segments = pathname.split("/").filter(Boolean);
    name = globalForPatterns.routePatterns.find((pattern) => matches(pattern, segments))?.name ?? "unmatched";
    // Any client may send any path: past the bound, start again rather than grow.
    if (remembered.size >= REMEMBERED_PATHS) remembered.clear();
    remembered.set(pathname, name);
  }
  return name;
}

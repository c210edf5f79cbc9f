/**
 * `npm run bench:profile -- [--postgresql] [--floor] [PATH ...]`: where `next start` spends its time under load.
 * Starts the built app with `node --cpu-prof` on a seeded database (SQLite, or with --postgresql a throwaway
 * PostgreSQL cluster, as the benchmark starts), loads each PATH (default: the four rate reads) with autocannon,
 * stops the app so V8 writes the profile, and prints the self time by function and by package. The raw profile is
 * kept in bench/results/ (open it in Chrome DevTools' Performance panel).
 *
 * With --floor, the bare Next.js baseline (bench/baselines/next) runs under the profiler too, and each PATH's
 * floor is loaded right after it, as the bench pairs them: a /rates/{date} with the route with a path parameter, a
 * body over 10 KB (the 10-year history) with constant JSON of its size, the others with the small constant. Only
 * the samples inside the measured windows are counted, and the summary gives each function's and package's self
 * time per request answered, the app's beside the floor's: what the app adds to a request, in microseconds, which
 * holds on a busy machine where shares of a whole profile (start-up and idle time included) do not.
 * BENCH_SECONDS (8) per window, BENCH_ROUNDS (1) turns of app then floor. The bundles' functions are named by their
 * source maps (the product's lib/ and app/, Next's own files), and each table is also given with each function's
 * calls included; `--compare FILE --tree NAME [--up]` prints what a function of the tables calls (or its callers).
 */

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { startThrowawayPostgresql, type ThrowawayPostgresql } from "../tools/throwaway-postgresql";
import { measureLoad } from "./support/load";
import { SEEDED_DAYS, seedDailyRates, seedDailyRatesPostgresql, shiftDate } from "./support/seed";
import {
  assertBuilt,
  buildBareNext,
  makeDatabase,
  migrateDatabase,
  projectRoot,
  type Server,
  startApp,
  startBareNext,
} from "./support/servers";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** Microseconds on the monotonic clock, which process.hrtime reads too. */
  startTime: number;
}
/** A measured load: when (monotonic clock, µs), how many requests were answered, the server's CPU per request. */
interface Window {
  startMicros: number;
  endMicros: number;
  requests: number;
  cpuMicrosPerRequest?: number;
}

function packageOf(url: string): string {
  const file = url.replace(/^file:\/\//, "");
  const modules = file.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = file.slice(modules + "node_modules/".length).split("/");
    const name = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    // Next's compiled dependencies are Next's own cost, but name the big ones apart.
    if (name === "next" && rest.includes("compiled")) return `next/compiled/${rest[rest.indexOf("compiled") + 1]}`;
    // Next's ESM build (what the bundles hold) and its CommonJS build (what `next start` runs) as one.
    if (name === "next") return `next/${rest.slice(rest[2] === "esm" ? 3 : 2, rest[2] === "esm" ? 5 : 4).join("/")}`;
    return name;
  }
  if (file.includes("/.next/server/")) return "app bundle (.next/server)";
  if (file.startsWith("node:") || !file.includes("/"))
    return file === "" ? "(native/V8)" : `node:${file.replace(/^node:/, "")}`;
  return path.relative(projectRoot, file);
}

interface SelfTimes {
  byFunction: Map<string, number>;
  /** Time (µs) with the function anywhere on the stack: what it costs with all it calls. */
  inclusive: Map<string, number>;
  byPackage: Map<string, number>;
  total: number;
  /** Requests answered in the counted windows (every sample is counted when no window is given). */
  requests?: number;
}

const sourceMaps = new Map<string, SourceMap | null>();

/**
 * Where a bundled function comes from, by the bundle's source map: the bundles are minified, and Next's server code
 * and the product's lib/ are compiled into them.
 */
function originalOf(url: string, line: number, column: number): { file: string; line: number } | undefined {
  const file = url.replace(/^file:\/\//, "");
  if (!file.includes("/.next/server/")) return undefined;
  let map = sourceMaps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, "utf8")));
    } catch {
      map = null;
    }
    sourceMaps.set(file, map);
  }
  const entry = map?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
  if (!entry?.originalSource) return undefined;
  let source = entry.originalSource.replace(/^turbopack:\/\/\/\[project\]\//, `${projectRoot}/`);
  // The maps give paths as URLs: app/rates/%5Bdate%5D/route.ts is app/rates/[date]/route.ts.
  try {
    source = decodeURIComponent(source);
  } catch {}
  return { file: path.resolve(path.dirname(file), source), line: entry.originalLine ?? 0 };
}

const keys = new WeakMap<ProfileNode, { name: string; where: string }>();

/** A function's name in the tables, and its package: where it is, through the source maps for the bundles. */
function functionKey(node: ProfileNode): { name: string; where: string } {
  let key = keys.get(node);
  if (!key) {
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const original = originalOf(url, lineNumber, columnNumber);
    const where = packageOf(original ? `file://${original.file}` : url);
    // A bundle without its map: its lines differ from one build to the other.
    const line = original
      ? `:${original.line + 1}`
      : url && where !== "app bundle (.next/server)"
        ? `:${lineNumber + 1}`
        : "";
    key = { name: `${functionName || "(anonymous)"}  ${where}${line}`, where };
    keys.set(node, key);
  }
  return key;
}

/** Self and inclusive time (µs) by function and by package, of the samples inside `windows` when given. */
function selfTimes(profile: CpuProfile, windows?: Window[]): SelfTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfMicros = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (windows && !windows.some((window) => at >= window.startMicros && at <= window.endMicros)) return;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
  });
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const [id, micros] of selfMicros) {
    const { name, where } = functionKey(byId.get(id)!);
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    byPackage.set(where, (byPackage.get(where) ?? 0) + micros);
    total += micros;
    // Each function once per sample, however deep it recurses.
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at))
      onStack.add(functionKey(byId.get(at)!).name);
    for (const key of onStack) inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
  }
  return {
    byFunction,
    byPackage,
    inclusive,
    total,
    requests: windows?.reduce((sum, window) => sum + window.requests, 0),
  };
}

function summarise(profile: CpuProfile, top = 25) {
  const { byFunction, byPackage, total } = selfTimes(profile);
  const table = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`)
      .join("\n");
  return `self time by package:\n${table(byPackage)}\n\nself time by function:\n${table(byFunction)}`;
}

/** The app's and the floor's self time per request side by side, the largest differences first. */
function compare(app: SelfTimes, floor: SelfTimes, top = 20, appWindows: Window[] = [], floorWindows: Window[] = []) {
  const perRequest = (micros: number, times: SelfTimes) => micros / (times.requests || 1);
  const format = (value: number) => value.toFixed(1).padStart(8);
  const table = (appMap: Map<string, number>, floorMap: Map<string, number>) =>
    [...new Set([...appMap.keys(), ...floorMap.keys()])]
      .map((name) => {
        const a = perRequest(appMap.get(name) ?? 0, app);
        const f = perRequest(floorMap.get(name) ?? 0, floor);
        return { name, a, f };
      })
      .sort((x, y) => Math.abs(y.a - y.f) - Math.abs(x.a - x.f))
      .slice(0, top)
      .map(({ name, a, f }) => `${format(a)} ${format(f)} ${format(a - f)}  ${name}`)
      .join("\n");
  const busy = (times: SelfTimes) =>
    perRequest(times.total - (times.byFunction.get("(idle)  (native/V8)") ?? 0), times);
  const header = `     app    floor     more  (µs of self time per request)`;
  // The app's own code (its bundle, the rest of node_modules it loads at run time) with all it calls.
  const own = [...app.inclusive.entries()]
    .filter(([name]) => / {2}(lib|app)\//.test(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => `${format(perRequest(micros, app))}  ${name}`)
    .join("\n");
  const cpu = (windows: Window[]) => {
    const measured = windows.filter((window) => window.cpuMicrosPerRequest !== undefined);
    if (!measured.length) return "?";
    const requests = measured.reduce((sum, window) => sum + window.requests, 0);
    const micros = measured.reduce((sum, window) => sum + window.cpuMicrosPerRequest! * window.requests, 0);
    return (micros / requests).toFixed(0);
  };
  return [
    `requests counted: app ${app.requests}, floor ${floor.requests}; self time per request, idle left out: app ${busy(app).toFixed(0)} µs, floor ${busy(floor).toFixed(0)} µs; server CPU per request (/proc): app ${cpu(appWindows)} µs, floor ${cpu(floorWindows)} µs`,
    `by package, largest differences first:\n${header}\n${table(app.byPackage, floor.byPackage)}`,
    `by function, largest differences first:\n${header}\n${table(app.byFunction, floor.byFunction)}`,
    `by function with what it calls (inclusive), largest differences first:\n     app    floor     more  (µs per request)\n${table(app.inclusive, floor.inclusive)}`,
    `the app's own functions with what they call (inclusive), µs per request:\n${own}`,
  ].join("\n");
}

/** What a profiled run with --floor leaves beside its profiles, to compare them again (--compare). */
interface Comparison {
  app: string;
  floor: string;
  targets: { app: string; floor: string; appWindows: Window[]; floorWindows: Window[] }[];
}

function readProfiles(comparison: Comparison): { app: CpuProfile; floor: CpuProfile } {
  const read = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  return { app: read(comparison.app), floor: read(comparison.floor) };
}

function compareAll(comparison: Comparison): string {
  const { app, floor } = readProfiles(comparison);
  return comparison.targets
    .map(
      (target) =>
        `\n== ${target.app} against ${target.floor}\n${compare(selfTimes(app, target.appWindows), selfTimes(floor, target.floorWindows), 20, target.appWindows, target.floorWindows)}`,
    )
    .join("\n");
}

/**
 * The calls below each function whose name holds `name` (or, `up`, its callers above it), µs per request, as deep as
 * `depth`: what a line of the tables above is made of.
 */
function callTree(profile: CpuProfile, windows: Window[], name: string, up: boolean, depth = 6): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const requests = windows.reduce((sum, window) => sum + window.requests, 0) || 1;
  const micros = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (!windows.some((window) => at >= window.startMicros && at <= window.endMicros)) return;
    const stack: string[] = [];
    for (let node: number | undefined = id; node !== undefined; node = parentOf.get(node)) {
      stack.push(functionKey(byId.get(node)!).name);
    }
    if (!up) stack.reverse();
    const from = stack.findIndex((frame) => frame.includes(name));
    if (from < 0) return;
    const path = stack.slice(from, from + depth + 1);
    for (let length = 1; length <= path.length; length++) {
      const key = path.slice(0, length).join("\n");
      micros.set(key, (micros.get(key) ?? 0) + delta);
    }
  });
  const lines: string[] = [];
  const print = (key: string, level: number) => {
    const perRequest = micros.get(key)! / requests;
    if (perRequest < 0.5) return;
    lines.push(`${perRequest.toFixed(1).padStart(8)}  ${"  ".repeat(level)}${key.split("\n").at(-1)}`);
    const children = [...micros.keys()].filter(
      (other) => other.startsWith(`${key}\n`) && other.split("\n").length === level + 2,
    );
    for (const child of children.sort((a, b) => micros.get(b)! - micros.get(a)!)) print(child, level + 1);
  };
  const roots = [...micros.keys()].filter((key) => !key.includes("\n"));
  for (const root of roots.sort((a, b) => micros.get(b)! - micros.get(a)!)) print(root, 0);
  return lines.join("\n");
}

function treesOf(comparison: Comparison, name: string, up: boolean): string {
  const { app, floor } = readProfiles(comparison);
  return comparison.targets
    .map(
      (target) =>
        `\n== ${target.app}, ${up ? "callers of" : "calls below"} "${name}", µs per request\n${callTree(app, target.appWindows, name, up)}\n== ${target.floor}\n${callTree(floor, target.floorWindows, name, up)}`,
    )
    .join("\n");
}

/** The floor the bench compares a read with (bench/run.ts). */
function floorPathOf(pathname: string, bytes: number): string {
  if (/^\/rates\/\d{4}-\d{2}-\d{2}$/.test(pathname)) return "/segment";
  return bytes > 10_000 ? `/floor?bytes=${bytes}` : "/floor";
}

const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** A warm-up, then one measured window of `url`'s load. */
async function measuredWindow(url: string, seconds: number, server: Server): Promise<Window> {
  await measureLoad(url, { durationSeconds: 2, warmupSeconds: 0 });
  const startMicros = monotonicMicros();
  const result = await measureLoad(url, {
    durationSeconds: seconds,
    warmupSeconds: 0,
    serverProcessGroup: server.child.pid,
  });
  const endMicros = monotonicMicros();
  console.log(
    `${url.replace(/^http:\/\/[^/]+/, "")}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, errors ${result.errors + result.non2xx}, server CPU ${Math.round(result.cpuMicrosPerRequest ?? 0)} µs a request`,
  );
  return { startMicros, endMicros, requests: result.requests, cpuMicrosPerRequest: result.cpuMicrosPerRequest };
}

/** Stops a server started with --cpu-prof and returns the profile it wrote into `folder`. */
async function stopAndReadProfile(server: Server, folder: string, keptAs: string): Promise<CpuProfile> {
  // SIGINT: Next exits through process.exit, which lets V8 write the profile.
  await server.stop();
  const file = fs.readdirSync(folder).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile was written:\n${server.output()}`);
  const kept = path.join(projectRoot, "bench", "results", keptAs);
  fs.copyFileSync(path.join(folder, file), kept);
  console.log(`profile: ${path.relative(projectRoot, kept)}`);
  return JSON.parse(fs.readFileSync(kept, "utf8")) as CpuProfile;
}

async function main() {
  const summariseAt = process.argv.indexOf("--summarise");
  if (summariseAt >= 0) {
    console.log(summarise(JSON.parse(fs.readFileSync(process.argv[summariseAt + 1], "utf8")) as CpuProfile));
    return;
  }
  const compareAt = process.argv.indexOf("--compare");
  if (compareAt >= 0) {
    const comparison = JSON.parse(fs.readFileSync(process.argv[compareAt + 1], "utf8")) as Comparison;
    const treeAt = process.argv.indexOf("--tree");
    console.log(
      treeAt >= 0
        ? treesOf(comparison, process.argv[treeAt + 1], process.argv.includes("--up"))
        : compareAll(comparison),
    );
    return;
  }
  assertBuilt();
  const withFloor = process.argv.includes("--floor");
  if (withFloor) buildBareNext();
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const today = new Date().toISOString().slice(0, 10);
  const { dataDir, databaseFile } = makeDatabase();
  let cluster: ThrowawayPostgresql | undefined;
  let databaseUrl = `file:${databaseFile}`;
  const env: Record<string, string> = {};
  if (process.argv.includes("--postgresql")) {
    cluster = await startThrowawayPostgresql();
    execFileSync("psql", ["-X", "-q", "-c", 'CREATE DATABASE "bench"', cluster.url]);
    databaseUrl = cluster.urlOf("bench");
    Object.assign(env, {
      NEXTAUTH_SECRET: "bench-secret-bench-secret-bench-secret-1234",
      DATA_DIR: path.join(dataDir, "postgresql"),
    });
    migrateDatabase({ ...env, DATABASE_URL: databaseUrl });
    await seedDailyRatesPostgresql(databaseUrl, today);
  } else {
    seedDailyRates(databaseFile, today);
  }
  const paths = process.argv.slice(2).filter((arg) => arg.startsWith("/"));
  const targets = paths.length
    ? paths
    : [
        "/rates/",
        `/rates/${shiftDate(today, -100)}`,
        "/rates/history",
        `/rates/history?start_date=${shiftDate(today, -3660)}&end_date=${today}`,
      ];
  const profileDir = fs.mkdtempSync(path.join(dataDir, "profile-"));
  const floorProfileDir = fs.mkdtempSync(path.join(dataDir, "profile-floor-"));
  const profiled = (folder: string) => ["--cpu-prof", `--cpu-prof-dir=${folder}`];
  const app = await startApp({ databaseUrl, env, nodeArgs: profiled(profileDir) });
  let floor: Server | undefined;
  const pairs: Comparison["targets"] = [];
  try {
    if (withFloor) floor = await startBareNext({ nodeArgs: profiled(floorProfileDir) });
    for (const target of targets) {
      const bytes = (await (await fetch(app.baseUrl + target)).arrayBuffer()).byteLength;
      pairs.push({ app: target, floor: floorPathOf(target, bytes), appWindows: [], floorWindows: [] });
    }
    for (let round = 0; round < rounds; round++) {
      for (const pair of pairs) {
        pair.appWindows.push(await measuredWindow(app.baseUrl + pair.app, seconds, app));
        if (floor) pair.floorWindows.push(await measuredWindow(floor.baseUrl + pair.floor, seconds, floor));
      }
    }
  } catch (error) {
    await app.stop();
    await floor?.stop();
    cluster?.stop();
    throw error;
  }
  console.log(`\n${SEEDED_DAYS} rates seeded`);
  const appProfile = await stopAndReadProfile(app, profileDir, "profile.cpuprofile");
  cluster?.stop();
  if (floor) {
    await stopAndReadProfile(floor, floorProfileDir, "profile-floor.cpuprofile");
    const results = path.join(projectRoot, "bench", "results");
    const comparison: Comparison = {
      app: path.join(results, "profile.cpuprofile"),
      floor: path.join(results, "profile-floor.cpuprofile"),
      targets: pairs,
    };
    const kept = path.join(results, "profile-windows.json");
    fs.writeFileSync(kept, JSON.stringify(comparison));
    console.log(
      `windows: ${path.relative(projectRoot, kept)} (npm run bench:profile -- --compare ${path.relative(projectRoot, kept)})`,
    );
    console.log(compareAll(comparison));
  } else {
    console.log(`\n${summarise(appProfile)}`);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();

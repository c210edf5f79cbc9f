/**
 * `npm run bench:profile -- [--postgresql] [PATH ...]`: where `next start` spends its time under load. Starts the
 * built app with `node --cpu-prof` on a seeded database (SQLite, or with --postgresql a throwaway PostgreSQL
 * cluster, as the benchmark starts), loads each PATH (default: the four rate reads) with autocannon,
 * stops the app so V8 writes the profile, and prints the self time by function and by package. The raw
 * profile is kept in bench/results/ (open it in Chrome DevTools' Performance panel).
 */

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startThrowawayPostgresql, type ThrowawayPostgresql } from "../tools/throwaway-postgresql";
import { measureLoad } from "./support/load";
import { SEEDED_DAYS, seedDailyRates, seedDailyRatesPostgresql, shiftDate } from "./support/seed";
import { assertBuilt, makeDatabase, migrateDatabase, projectRoot, startApp } from "./support/servers";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function packageOf(url: string): string {
  const file = url.replace(/^file:\/\//, "");
  const modules = file.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = file.slice(modules + "node_modules/".length).split("/");
    const name = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
    // Next's compiled dependencies are Next's own cost, but name the big ones apart.
    if (name === "next" && rest.includes("compiled")) return `next/compiled/${rest[rest.indexOf("compiled") + 1]}`;
    if (name === "next") return `next/${rest.slice(2, 4).join("/")}`;
    return name;
  }
  if (file.includes("/.next/server/")) return "app bundle (.next/server)";
  if (file.startsWith("node:") || !file.includes("/"))
    return file === "" ? "(native/V8)" : `node:${file.replace(/^node:/, "")}`;
  return path.relative(projectRoot, file);
}

function summarise(profile: CpuProfile, top = 25) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = packageOf(url);
    const name = `${functionName || "(anonymous)"}  ${where}${url ? `:${lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    byPackage.set(where, (byPackage.get(where) ?? 0) + micros);
  }
  const table = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)} %  ${name}`)
      .join("\n");
  return `self time by package:\n${table(byPackage)}\n\nself time by function:\n${table(byFunction)}`;
}

async function main() {
  const summariseAt = process.argv.indexOf("--summarise");
  if (summariseAt >= 0) {
    console.log(summarise(JSON.parse(fs.readFileSync(process.argv[summariseAt + 1], "utf8")) as CpuProfile));
    return;
  }
  assertBuilt();
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
  const app = await startApp({ databaseUrl, env, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] });
  try {
    for (const target of targets) {
      const result = await measureLoad(app.baseUrl + target, {
        durationSeconds: Number(process.env.BENCH_SECONDS ?? 8),
      });
      console.log(
        `${target}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, errors ${result.errors + result.non2xx}`,
      );
    }
  } finally {
    // SIGINT: Next exits through process.exit, which lets V8 write the profile.
    await app.stop();
    cluster?.stop();
  }
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile was written:\n${app.output()}`);
  const kept = path.join(projectRoot, "bench", "results", "profile.cpuprofile");
  fs.copyFileSync(path.join(profileDir, file), kept);
  console.log(`\n${SEEDED_DAYS} rates seeded; profile: ${path.relative(projectRoot, kept)}\n`);
  console.log(summarise(JSON.parse(fs.readFileSync(kept, "utf8")) as CpuProfile));
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();

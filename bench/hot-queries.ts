/**
 * `npx tsx bench/hot-queries.ts`: what the per-request queries (lib/db/hot-sql.ts: the session check, a build
 * with its stages, the queue count, the rates version, a stage update) cost on SQLite and on PostgreSQL (a
 * throwaway local cluster, loopback), against the same query through Prisma. Each dialect runs in a child
 * process of its own (the app's modules choose the database once per process). Wall time per call, one
 * call at a time, and the process's CPU per call.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startThrowawayPostgresql } from "../tools/throwaway-postgresql";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SECRET = "bench-secret-bench-secret-bench-secret-1234";

async function measureHere() {
  const { getDb } = await import("../lib/db");
  const { findSessionUser } = await import("../lib/auth/revocations");
  const repository = await import("../lib/builds/repository");
  const { ratesVersion } = await import("../lib/rates/version");
  const db = getDb();
  const user = await db.user.create({ data: { email: "bench@example.com", passwordHash: "x", displayName: "bench" } });
  await db.revokedSession.create({ data: { sid: "other", expiresAt: new Date(Date.now() + 3_600_000) } });
  await repository.insertQueuedBuild(
    {
      id: "bench1",
      modules: ["base"],
      ttlSeconds: 3600,
      createdAt: new Date(),
      createdById: user.id,
      createdBy: "bench",
      trigger: "manual",
      triggeredBy: "bench",
      driver: "process",
      repositories: [{ alias: "odoo", ref: "main", commitSha: "a".repeat(40), commitSubject: "s", commitAuthor: "a" }],
      stages: ["checkout", "install", "test", "start", "healthcheck"],
    },
    100,
  );
  const results: [string, number, number][] = [];
  async function time(name: string, iterations: number, run: () => Promise<unknown>) {
    for (let i = 0; i < 100; i++) await run();
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await run();
    const wall = Number(process.hrtime.bigint() - start) / 1000 / iterations;
    const used = process.cpuUsage(cpu);
    results.push([name, wall, (used.user + used.system) / iterations]);
  }
  await time("session check, hot", 3000, () => findSessionUser("sid-1", user.id));
  await time("session check, Prisma (two findUnique)", 1000, () =>
    Promise.all([
      db.revokedSession.findUnique({ where: { sid: "sid-1" } }),
      db.user.findUnique({ where: { id: user.id } }),
    ]),
  );
  await time("build with repositories and stages, hot", 2000, () => repository.findBuild("bench1"));
  await time("build with repositories and stages, Prisma include", 1000, () =>
    db.build.findUnique({
      where: { id: "bench1" },
      include: { repositories: { orderBy: { position: "asc" } }, stages: { orderBy: { position: "asc" } } },
    }),
  );
  await time("queued count, hot", 3000, () => repository.countQueuedBuilds());
  await time("rates version, hot", 3000, async () => ratesVersion());
  await time("stage update, hot", 1000, () =>
    repository.updateStage("bench1", "checkout", { logFile: "checkout.log" }),
  );
  await time("stage update, Prisma updateMany", 1000, () =>
    db.buildStage.updateMany({ where: { buildId: "bench1", name: "checkout" }, data: { logFile: "checkout.log" } }),
  );
  process.stdout.write(JSON.stringify(results));
  process.exit(0);
}

function migrate(env: Record<string, string>) {
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

function measureIn(env: Record<string, string>): [string, number, number][] {
  const output = execFileSync(
    path.join(projectRoot, "node_modules", ".bin", "tsx"),
    [fileURLToPath(import.meta.url), "--child"],
    {
      cwd: projectRoot,
      env: { ...process.env, ...env, NODE_ENV: "production" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return JSON.parse(output);
}

if (process.argv.includes("--child")) {
  await measureHere();
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-hot-"));
  const cluster = await startThrowawayPostgresql();
  try {
    const sqliteEnv = { DATABASE_URL: `file:${path.join(dir, "app.db")}` };
    execFileSync("psql", ["-X", "-q", "-c", 'CREATE DATABASE "bench"', cluster.url]);
    const postgresqlEnv = {
      DATABASE_URL: cluster.urlOf("bench"),
      NEXTAUTH_SECRET: SECRET,
      DATA_DIR: path.join(dir, "pg"),
    };
    migrate(sqliteEnv);
    migrate(postgresqlEnv);
    const sqlite = measureIn(sqliteEnv);
    const postgresql = measureIn(postgresqlEnv);
    console.log(`${"query".padEnd(52)} ${"SQLite µs (CPU)".padStart(18)} ${"PostgreSQL µs (CPU)".padStart(22)}`);
    sqlite.forEach(([name, wall, cpu], index) => {
      const [, pgWall, pgCpu] = postgresql[index];
      console.log(
        `${name.padEnd(52)} ${`${wall.toFixed(0)} (${cpu.toFixed(0)})`.padStart(18)} ${`${pgWall.toFixed(0)} (${pgCpu.toFixed(0)})`.padStart(22)}`,
      );
    });
  } finally {
    cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

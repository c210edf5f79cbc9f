/**
 * Runs before the server starts (`npm start`, `npm run dev`): validates the environment and the builds
 * configuration, creates the data folder and migrates the database (SQLite or PostgreSQL), then prints where things are and
 * which configuration is in use. Any problem stops the start with a message that names it.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { InvalidBuildsConfigError, loadBuildsConfig } from "../lib/builds/config";
import { refuseDashboardUnderPreviews, warnPrivatePreviewsWithOpenRegistration } from "../lib/builds/preview-names";
import { checkStageUser, StageUserError } from "../lib/builds/runtime/run-as";
import { sqliteFileOf } from "../lib/db/database-url";
import { migratePostgresql, POSTGRESQL_MIGRATIONS_FOLDER } from "../lib/db/postgresql-migrations";
import { secureDataFolder } from "../lib/server/data-folder";
import { getEnv, InvalidEnvironmentError } from "../lib/server/env";
import { assertNoOtherServer, DataFolderInUseError } from "../lib/server/pid-file";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function main() {
  const env = getEnv();
  const builds = loadBuildsConfig(env.BUILDS_CONFIG);
  refuseDashboardUnderPreviews(builds, [env.PUBLIC_URL, env.NEXTAUTH_URL]);
  const privateWarning = warnPrivatePreviewsWithOpenRegistration(builds, env.REGISTRATION);
  if (privateWarning) console.warn(privateWarning);
  assertNoOtherServer(env.DATA_DIR);
  let database: string;
  const dbFile = sqliteFileOf(env.DATABASE_URL);
  if (dbFile === null) {
    fs.mkdirSync(env.DATA_DIR, { recursive: true, mode: 0o700 });
    for (const warning of checkStageUser(builds, env.DATA_DIR)) console.warn(warning);
    const run = await migratePostgresql(env.DATABASE_URL, path.join(projectRoot, POSTGRESQL_MIGRATIONS_FOLDER));
    for (const name of run.modified)
      console.warn(`The migration ${name} changed after it was applied to this database.`);
    database = `${redactPassword(env.DATABASE_URL)} (${run.applied.length > 0 ? `migrations applied: ${run.applied.join(", ")}` : "up to date"})`;
  } else {
    secureDataFolder(dbFile);
    for (const warning of checkStageUser(builds, env.DATA_DIR)) console.warn(warning);
    // WAL lets the server, the migration step and test processes read while one of them writes.
    const connection = new Database(dbFile);
    connection.pragma("journal_mode = WAL");
    connection.close();
    const migrations = migrate(env.DATABASE_URL);
    // Whatever the migration created, the -wal and -shm files included, is the server's only.
    secureDataFolder(dbFile);
    database = `${dbFile} (${migrations})`;
  }

  const secretFile = path.join(env.DATA_DIR, "nextauth-secret");
  const secretKept = fs.existsSync(secretFile) && fs.readFileSync(secretFile, "utf8").trim() === env.NEXTAUTH_SECRET;
  const rows: [string, string][] = [
    ["URL", env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`],
    ["Data folder", env.DATA_DIR],
    ["Database", database],
    ["Secret", secretKept ? `kept in ${secretFile}` : "NEXTAUTH_SECRET"],
    [
      "Builds",
      `${path.resolve(env.BUILDS_CONFIG)} (${builds.repositories.length} ${builds.repositories.length === 1 ? "repository" : "repositories"})`,
    ],
    ["Central bank", `${env.BCV_URL} (${env.BCV_TIMEOUT_MS} ms per attempt, ${env.BCV_RETRIES} retries)`],
    [
      "Rate schedule",
      env.RATES_FETCH_INTERVAL_SECONDS > 0
        ? `every ${env.RATES_FETCH_INTERVAL_SECONDS} s`
        : "off (POST /rates/ fetches)",
    ],
    ["Time zone", env.RATES_TIMEZONE],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(
    ["BCV Rates & Previews", ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)].join("\n"),
  );
}

/** A database URL fit to print: its password, if any, replaced. */
function redactPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

/**
 * `prisma migrate deploy` (SQLite), its output kept unless it fails: on success Prisma prints a page of notes about
 * its configuration that a person starting the app does not need. Returns what it did, in a few words.
 */
function migrate(databaseUrl: string): string {
  let output: string;
  try {
    output = execFileSync(path.join(projectRoot, "node_modules", ".bin", "prisma"), ["migrate", "deploy"], {
      cwd: projectRoot,
      // CHECKPOINT_DISABLE: Prisma's CLI otherwise starts a process that reports to checkpoint.prisma.io.
      env: { ...process.env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: "1" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`prisma migrate deploy failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
  const applied = [...output.matchAll(/└─ (\S+)\//g)].map((match) => match[1]);
  return applied.length > 0 ? `migrations applied: ${applied.join(", ")}` : "up to date";
}

try {
  await main();
} catch (error) {
  if (
    error instanceof InvalidEnvironmentError ||
    error instanceof InvalidBuildsConfigError ||
    error instanceof StageUserError ||
    error instanceof DataFolderInUseError
  ) {
    console.error(error.message);
  } else {
    console.error(`Could not prepare the database: ${(error as Error).message}`);
  }
  process.exit(1);
}

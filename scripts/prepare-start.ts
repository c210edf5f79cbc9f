/**
 * Runs before the server starts (`npm start`, `npm run dev`): validates the environment and the builds
 * configuration, creates the data folder and migrates the SQLite database. Any problem stops the start with a
 * message that names it.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { databaseFilePath } from "../lib/database-url";
import { InvalidBuildsConfigError, loadBuildsConfig } from "../lib/builds/config";
import { checkStageUser, StageUserError } from "../lib/builds/run-as";
import { secureDataFolder } from "../lib/data-folder";
import { getEnv, InvalidEnvironmentError } from "../lib/env";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function main() {
  const env = getEnv();
  const buildsConfig = loadBuildsConfig(env.BUILDS_CONFIG);
  const dbFile = databaseFilePath(env.DATABASE_URL);
  secureDataFolder(dbFile);
  for (const warning of checkStageUser(buildsConfig, env.DATA_DIR)) console.warn(warning);
  // WAL lets the server, the migration step and test processes read while one of them writes.
  const database = new Database(dbFile);
  database.pragma("journal_mode = WAL");
  database.close();
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "prisma"), ["migrate", "deploy"], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: env.DATABASE_URL },
    stdio: ["ignore", "inherit", "inherit"],
  });
  // Whatever the migration created, the -wal and -shm files included, is the server's only.
  secureDataFolder(dbFile);
}

try {
  main();
} catch (error) {
  if (error instanceof InvalidEnvironmentError || error instanceof InvalidBuildsConfigError || error instanceof StageUserError) {
    console.error(error.message);
  } else {
    console.error(`Could not prepare the database: ${(error as Error).message}`);
  }
  process.exit(1);
}

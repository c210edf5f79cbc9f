import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { type SharedServerRecord, stopSharedServers } from "../../tools/processes";
import { startThrowawayPostgresql } from "../../tools/throwaway-postgresql";
import { startBcvServer } from "./bcv-server";
import { TEST_NEXTAUTH_SECRET } from "./postgresql";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

/**
 * Checks that the app is built and migrates one template database; every test server starts on a copy of
 * it, so a file's tests never see another file's data and no test pays for a migration. On SQLite the
 * template is a file; in the `integration-postgresql` project it is a database of a throwaway PostgreSQL
 * cluster started here (and stopped at the end), copied with CREATE DATABASE ... TEMPLATE.
 */
export default async function setup(project: TestProject) {
  if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    throw new Error("The app is not built: run `npm run build` first (npm test does).");
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "app-template-db-"));
  // Where sharedAppServer() records the servers the workers share (tests/support/app-server.ts); each is
  // stopped here at the end, before the PostgreSQL cluster they use.
  const sharedServersDir = fs.mkdtempSync(path.join(os.tmpdir(), "app-shared-servers-"));
  project.provide("sharedServersDir", sharedServersDir);
  // Their central bank stand-ins, one a worker (they live as long as this process: the whole run).
  const workers = Math.max(2, Number(project.config.maxWorkers) || 0, Number(project.vitest.config.maxWorkers) || 0);
  const banks = await Promise.all(Array.from({ length: workers }, () => startBcvServer()));
  project.provide(
    "sharedBankUrls",
    banks.map((bank) => bank.url),
  );
  const stopSharedServersAndBanks = async () => {
    for (const bank of banks) void bank.stop();
    const records = fs
      .readdirSync(sharedServersDir)
      .map((name) => JSON.parse(fs.readFileSync(path.join(sharedServersDir, name), "utf8")) as SharedServerRecord);
    await stopSharedServers(records);
    fs.rmSync(sharedServersDir, { recursive: true, force: true });
  };
  const prepareStart = (env: Record<string, string>) =>
    execFileSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "inherit"],
    });

  if (project.name.endsWith("-postgresql")) {
    const cluster = await startThrowawayPostgresql();
    try {
      execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", 'CREATE DATABASE "template_app"', cluster.url]);
      prepareStart({
        DATABASE_URL: cluster.urlOf("template_app"),
        NEXTAUTH_SECRET: TEST_NEXTAUTH_SECRET,
        DATA_DIR: dir,
      });
    } catch (error) {
      await stopSharedServersAndBanks();
      cluster.stop();
      throw error;
    }
    project.provide("testDatabase", "postgresql");
    project.provide("postgresqlAdminUrl", cluster.url);
    project.provide("templateDatabase", "template_app");
    return async () => {
      await stopSharedServersAndBanks();
      cluster.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }

  const databaseFile = path.join(dir, "template.db");
  prepareStart({ DATABASE_URL: `file:${databaseFile}` });
  project.provide("testDatabase", "sqlite");
  project.provide("templateDatabase", databaseFile);
  return async () => {
    await stopSharedServersAndBanks();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Which database the test servers run on. */
    testDatabase: "sqlite" | "postgresql";
    /** SQLite: the migrated template file. PostgreSQL: the migrated template database's name. */
    templateDatabase: string;
    /** PostgreSQL only: a superuser URL of the throwaway cluster. */
    postgresqlAdminUrl: string;
    /** The folder where sharedAppServer() records the servers each worker shares. */
    sharedServersDir: string;
    /** The central bank stand-in of each worker's shared server (BCV_URL), by VITEST_POOL_ID - 1. */
    sharedBankUrls: string[];
  }
}

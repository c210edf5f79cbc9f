import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");

/**
 * Checks that the app is built and migrates one template database; every test server starts on a copy of
 * it, so a file's tests never see another file's data and no test pays for a migration.
 */
export default function setup(project: TestProject) {
  if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    throw new Error("The app is not built: run `npm run build` first (npm test does).");
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "app-template-db-"));
  const databaseFile = path.join(dir, "template.db");
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: `file:${databaseFile}` },
    stdio: ["ignore", "ignore", "inherit"],
  });
  project.provide("templateDatabase", databaseFile);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

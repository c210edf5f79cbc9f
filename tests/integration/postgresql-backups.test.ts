import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { dropTestDatabase, emptyTestDatabase } from "../support/postgresql";
import { registerAndGetToken } from "../support/users";

/**
 * PostgreSQL only (project integration-postgresql): docs/operations.md's backup recipe, its very lines. pg_dump while the
 * server runs, pg_restore into an empty database, and a server started on it serves what the first one held:
 * the same users, the same tokens.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");

let app: AppServer;
let restoredApp: AppServer | undefined;
let restoredUrl: string;
let work: string;

beforeAll(async () => {
  app = await startAppServer();
  restoredUrl = emptyTestDatabase();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "postgresql-backup-"));
});
afterAll(async () => {
  await restoredApp?.stop();
  await app?.stop();
  dropTestDatabase(restoredUrl);
  fs.rmSync(work, { recursive: true, force: true });
});

/** The commands of docs/operations.md's PostgreSQL recipe: the fenced block after its marker. */
function recipe(): string[] {
  const readme = fs.readFileSync(path.join(projectRoot, "docs", "operations.md"), "utf8");
  const block = /<!-- postgresql-backup-recipe -->\n```sh\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error("docs/operations.md has no PostgreSQL backup recipe");
  return block[1].split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

describe("the PostgreSQL backup recipe of docs/operations.md", () => {
  it("pg_dump while the server runs, pg_restore into an empty database: a server on it serves the same users and tokens", {
    timeout: 90_000,
  }, async () => {
    const { email, password, authorization } = await registerAndGetToken(app);
    const [dump, restore] = recipe();
    expect(dump).toMatch(/^pg_dump /);
    expect(restore).toMatch(/^pg_restore /);
    const sh = (command: string, databaseUrl: string) =>
      execFileSync("sh", ["-c", command], {
        cwd: work,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: "pipe",
      });
    sh(dump, app.databaseUrl);
    sh(restore, restoredUrl);

    restoredApp = await startAppServer({ DATABASE_URL: restoredUrl });
    expect((await restoredApp.fetch("/readyz")).status).toBe(200);
    const me = await restoredApp.fetch("/users/me", { headers: authorization });
    expect(me.status).toBe(200);
    expect((await me.json()).email).toBe(email);
    const signIn = await restoredApp.fetch("/users/token", {
      method: "POST",
      body: new URLSearchParams({ username: email, password }),
    });
    expect(signIn.status).toBe(200);
  });
});

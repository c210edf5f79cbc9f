import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { registerAndGetToken } from "../support/users";

/**
 * `npm run backup -- FILE` and `npm run restore -- FILE` on SQLite, and scheduled backups (BACKUP_DIR). A backup
 * taken while the server and another connection write is whole (integrity_check), holds every write acknowledged
 * before it began, and serves, its secret with it: a token of the first server is accepted by one started on the
 * restored copy. A restore refuses while a server runs, and refuses a newer schema; it keeps what it replaces.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const run = promisify(execFile);

let app: AppServer;
let work: string;
let scheduled: string;
let restoredApp: AppServer | undefined;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "backups-test-"));
  scheduled = path.join(work, "scheduled");
  app = await startAppServer({ BACKUP_DIR: scheduled, BACKUP_INTERVAL_HOURS: "0.0005", BACKUP_KEEP: "2" });
});
afterAll(async () => {
  await restoredApp?.stop();
  await app?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Runs `npm run <script> -- <file>` on a database; resolves with its exit code and output. */
async function npmRun(script: "backup" | "restore", file: string, databaseUrl: string) {
  try {
    const { stdout, stderr } = await run("npm", ["run", "--silent", script, "--", file], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, output: stdout + stderr };
  }
}

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe("npm run backup", () => {
  it("under write load: the copy passes integrity_check, holds every write acknowledged before it began, and serves", {
    timeout: 120_000,
  }, async () => {
    const { authorization } = await registerAndGetToken(app);
    // Another connection writing thousands of rows a second, in batches between which the server writes too.
    const writer = new Database(app.databaseFile, { timeout: 10_000 });
    const insert = writer.prepare(`INSERT INTO "LoginAttempt" ("email", "address", "createdAt") VALUES (?, ?, ?)`);
    let committed = 0;
    let writing = true;
    const writes = (async () => {
      while (writing) {
        writer.transaction(() => {
          for (let i = 0; i < 20; i++) insert.run(`load-${committed + i}@example.com`, "192.0.2.1", Date.now());
        })();
        committed += 20;
        // A moment between batches, in which the server gets the write lock too.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    // And the server itself, acknowledging registrations through its API.
    const registered: string[] = [];
    let registering = true;
    const registrations = (async () => {
      while (registering) {
        const email = `during-backup-${registered.length}-${Date.now()}@example.com`;
        const response = await app.fetch("/users/", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ email, password: "correct horse battery" }),
        });
        await response.arrayBuffer();
        if (response.status === 201) registered.push(email);
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    while (committed < 2_000 || registered.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));

    const backup = path.join(work, "manual", "app-backup.db");
    const acknowledged = { rows: committed, users: [...registered] };
    const made = await npmRun("backup", backup, app.databaseUrl);
    writing = false;
    registering = false;
    await Promise.all([writes, registrations]);
    writer.close();
    expect(made.output).toContain(`into ${backup}`);
    expect(made.code).toBe(0);
    expect(committed).toBeGreaterThan(acknowledged.rows);
    expect(modeOf(backup)).toBe(0o600);
    expect(modeOf(`${backup}.nextauth-secret`)).toBe(0o600);

    const copy = new Database(backup, { readonly: true });
    try {
      expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
      const rows = copy
        .prepare(`SELECT "email" FROM "LoginAttempt" WHERE "email" LIKE 'load-%'`)
        .all()
        .map((row) => (row as { email: string }).email);
      const present = new Set(rows);
      for (let i = 0; i < acknowledged.rows; i++) expect(present.has(`load-${i}@example.com`)).toBe(true);
      const users = new Set(
        copy
          .prepare(`SELECT "email" FROM "User"`)
          .all()
          .map((row) => (row as { email: string }).email),
      );
      for (const email of acknowledged.users) expect(users.has(email)).toBe(true);
    } finally {
      copy.close();
    }

    // Restored into a data folder of its own, it serves, and knows the tokens of the server it was taken from.
    const restoredUrl = `file:${path.join(work, "restored", "app.db")}`;
    const restored = await npmRun("restore", backup, restoredUrl);
    expect(restored.code).toBe(0);
    restoredApp = await startAppServer({ DATABASE_URL: restoredUrl });
    const me = await restoredApp.fetch("/users/me", { headers: authorization });
    expect(me.status).toBe(200);
    const signIn = await restoredApp.fetch("/users/token", {
      method: "POST",
      body: new URLSearchParams({ username: acknowledged.users[0], password: "correct horse battery" }),
    });
    expect(signIn.status).toBe(200);
    await restoredApp.stop();
    restoredApp = undefined;
  });

  it("never overwrites a file", async () => {
    const existing = path.join(work, "existing.db");
    fs.writeFileSync(existing, "precious");
    const made = await npmRun("backup", existing, app.databaseUrl);
    expect(made.code).toBe(1);
    expect(made.output).toContain("exists already");
    expect(fs.readFileSync(existing, "utf8")).toBe("precious");
  });
});

describe("npm run restore", () => {
  let backup: string;
  beforeAll(async () => {
    backup = path.join(work, "for-restore.db");
    expect((await npmRun("backup", backup, app.databaseUrl)).code).toBe(0);
  });

  it("refuses while a server runs on the data folder", async () => {
    const refused = await npmRun("restore", backup, app.databaseUrl);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/^Refusing to restore: Another server \(pid \d+\) is using the data folder/m);
    expect((await app.fetch("/readyz")).status).toBe(200);
  });

  it("refuses a backup of a newer build, naming the migrations it does not know", async () => {
    const newer = path.join(work, "newer.db");
    fs.copyFileSync(backup, newer);
    const database = new Database(newer);
    database
      .prepare(
        `INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "started_at", "finished_at", "applied_steps_count")
         VALUES ('future', 'x', '29991231000000_from_the_future', 0, 0, 1)`,
      )
      .run();
    database.close();
    const target = path.join(work, "untouched", "app.db");
    const refused = await npmRun("restore", newer, `file:${target}`);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("comes from a newer build");
    expect(refused.output).toContain("29991231000000_from_the_future");
    expect(fs.existsSync(target)).toBe(false);
  });

  it("refuses a database holding only the migrations table, every migration listed, and replaces nothing", async () => {
    const hollow = path.join(work, "hollow.db");
    fs.copyFileSync(backup, hollow);
    const database = new Database(hollow);
    const tables = database
      .prepare(
        `SELECT "name" FROM "sqlite_master" WHERE "type" = 'table' AND "name" NOT LIKE 'sqlite_%' AND "name" <> '_prisma_migrations'`,
      )
      .all() as { name: string }[];
    database.pragma("foreign_keys = OFF");
    for (const { name } of tables) database.exec(`DROP TABLE "${name}"`);
    database.close();
    const folder = path.join(work, "hollow-target");
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, "app.db"), "the database before");
    const refused = await npmRun("restore", hollow, `file:${path.join(folder, "app.db")}`);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(
      /^Refusing to restore: .*hollow\.db is no whole database of this app: its schema is not what the \d+ migrations it lists make \(no table \w+/m,
    );
    // Nothing moved aside or half-copied (the secret the command's environment makes on its first run aside).
    expect(fs.readdirSync(folder).filter((name) => /replaced|restoring/.test(name))).toEqual([]);
    expect(fs.readFileSync(path.join(folder, "app.db"), "utf8")).toBe("the database before");
  });

  it("refuses a database whose table lacks a column its migrations add, naming it", async () => {
    const lacking = path.join(work, "lacking.db");
    fs.copyFileSync(backup, lacking);
    const database = new Database(lacking);
    database.exec(`ALTER TABLE "Build" DROP COLUMN "visitedAt"`);
    database.close();
    const target = path.join(work, "lacking-target", "app.db");
    const refused = await npmRun("restore", lacking, `file:${target}`);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("no column Build.visitedAt");
    expect(fs.existsSync(target)).toBe(false);
  });

  it("keeps the database it replaces beside it", async () => {
    const folder = path.join(work, "replacing");
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, "app.db"), "the database before");
    const restored = await npmRun("restore", backup, `file:${path.join(folder, "app.db")}`);
    expect(restored.code).toBe(0);
    const kept = fs.readdirSync(folder).filter((name) => name.startsWith("app.db.replaced-"));
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(path.join(folder, kept[0]), "utf8")).toBe("the database before");
    // Buffer.equals: toEqual walks a buffer byte by byte, seconds for a database of a few megabytes.
    const restoredBytes = fs.readFileSync(path.join(folder, "app.db"));
    expect(restoredBytes.equals(fs.readFileSync(backup)), "the restored database is the backup, byte for byte").toBe(
      true,
    );
    expect(modeOf(path.join(folder, "app.db"))).toBe(0o600);
  });
});

describe("scheduled backups (BACKUP_DIR)", () => {
  it("are made every BACKUP_INTERVAL_HOURS, the newest BACKUP_KEEP kept, each with its secret, mode 0600", {
    timeout: 60_000,
  }, async () => {
    const deadline = Date.now() + 30_000;
    while ((app.output().match(/^backups: \/.*\.db \(\d+ bytes\)$/gm) ?? []).length < 3) {
      if (Date.now() > deadline) throw new Error(`fewer than 3 scheduled backups:\n${app.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const files = fs.readdirSync(scheduled).sort();
    const backups = files.filter((name) => name.endsWith(".db"));
    expect(backups.length).toBeLessThanOrEqual(3);
    expect(backups.length).toBeGreaterThanOrEqual(2);
    for (const name of backups) {
      expect(name).toMatch(/^app-\d{8}T\d{9}Z\.db$/);
      expect(modeOf(path.join(scheduled, name))).toBe(0o600);
      expect(modeOf(path.join(scheduled, `${name}.nextauth-secret`))).toBe(0o600);
      const copy = new Database(path.join(scheduled, name), { readonly: true });
      expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
      copy.close();
    }
    expect(files.filter((name) => name.endsWith(".nextauth-secret"))).toHaveLength(backups.length);
  });
});

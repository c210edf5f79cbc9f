import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, startAppServer } from "../support/app-server";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "startup-test-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Runs a command to its end without blocking this process (the tests below run side by side): its exit status
 * (null when killed, as by `timeout`), stdout and stderr.
 */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeout = 0,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: projectRoot, env, encoding: "utf8", timeout }, (error, stdout, stderr) => {
      const code = (error as { code?: unknown } | null)?.code;
      resolve({ status: error ? (typeof code === "number" ? code : null) : 0, stdout, stderr });
    });
  });
}

function prepareStart(env: Record<string, string>) {
  return run(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
    ...process.env,
    NEXTAUTH_SECRET: undefined,
    ...env,
  });
}

// Concurrent: every test works in a data folder of its own; most of their time is waiting for a process. Each
// starts tsx up to twice, beside the others: two minutes, for a loaded machine.
describe("starting the application", { concurrent: true, timeout: 120_000 }, () => {
  it("creates and migrates the database by itself, with a generated secret", async () => {
    const result = await prepareStart({ DATABASE_URL: `file:${dir}/fresh/app.db` });
    expect(result.status, result.stderr).toBe(0);
    expect(fs.existsSync(`${dir}/fresh/app.db`)).toBe(true);
    expect(fs.statSync(`${dir}/fresh/nextauth-secret`).mode & 0o777).toBe(0o600);
  });

  it("prints where the data is and the configuration in use, without Prisma's notes", async () => {
    const first = await prepareStart({ DATABASE_URL: `file:${dir}/quiet/app.db`, PORT: "4321" });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("http://localhost:4321");
    expect(first.stdout).toMatch(new RegExp(`Data folder +${dir}/quiet\n`));
    expect(first.stdout).toContain(`${dir}/quiet/app.db (migrations applied: 20261122190000_init`);
    expect(first.stdout).toContain(`kept in ${dir}/quiet/nextauth-secret`);
    expect(first.stdout).toContain("builds.config.yaml");
    expect(first.stdout + first.stderr).not.toMatch(/prisma|warn|will NOT be used|dev\.db|deprecated/i);

    const again = await prepareStart({ DATABASE_URL: `file:${dir}/quiet/app.db` });
    expect(again.stdout).toContain(`${dir}/quiet/app.db (up to date)`);
  });

  it("warns when previews are kept to signed-in users while anyone may register", async () => {
    fs.mkdirSync(`${dir}/private-config`, { recursive: true });
    const config = `${dir}/private-config/builds.yaml`;
    fs.writeFileSync(
      config,
      `builds_root: ${dir}/private-config/builds\nrepositories:\n  - { alias: demo, url: ., preview_access: users }\n  - { alias: open, url: . }\n`,
    );
    const open = await prepareStart({ DATABASE_URL: `file:${dir}/private/app.db`, BUILDS_CONFIG: config });
    expect(open.status, open.stderr).toBe(0);
    expect(open.stderr).toContain(
      'WARNING: preview_access is "users" for demo, but REGISTRATION=open lets anyone register',
    );
    const closed = await prepareStart({
      DATABASE_URL: `file:${dir}/private/app.db`,
      BUILDS_CONFIG: config,
      REGISTRATION: "closed",
    });
    expect(closed.status, closed.stderr).toBe(0);
    expect(closed.stderr).not.toContain("preview_access");
  });

  it("stops with a message naming an invalid variable", async () => {
    const result = await prepareStart({ DATABASE_URL: `file:${dir}/bad/app.db`, RATES_TIMEZONE: "Nowhere/Land" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("RATES_TIMEZONE");
    expect(fs.existsSync(`${dir}/bad/app.db`)).toBe(false);
  });

  it("refuses a second server on a data folder in use, naming the first; a stopped server's record is ignored", async () => {
    const app = await startAppServer();
    const dataDir = path.dirname(app.databaseFile);
    try {
      const pid = Number(fs.readFileSync(path.join(dataDir, "server.pid"), "utf8"));
      const second = await prepareStart({ DATABASE_URL: `file:${app.databaseFile}` });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`Another server (pid ${pid}) is using the data folder ${dataDir}.`);
      expect(second.stderr).not.toMatch(/prisma|SocketTimeout/i);
      // `next start` run by hand stops too, before serving anything.
      const port = String(await freePort());
      const byHand = await run(
        path.join(projectRoot, "node_modules", ".bin", "next"),
        ["start", "-p", port],
        {
          ...process.env,
          NODE_ENV: "production",
          NEXTAUTH_SECRET: undefined,
          DATABASE_URL: `file:${app.databaseFile}`,
          PORT: port,
        },
        60_000,
      );
      expect(byHand.status).not.toBe(0);
      expect(byHand.stdout + byHand.stderr).toContain(`Another server (pid ${pid})`);
      expect(fs.readFileSync(path.join(dataDir, "server.pid"), "utf8").trim()).toBe(String(pid));
      await app.stopProcess();
      // Stopped, the server removed its record; a record left by a killed one names a dead pid and is ignored.
      expect(fs.existsSync(path.join(dataDir, "server.pid"))).toBe(false);
      fs.writeFileSync(path.join(dataDir, "server.pid"), "999999999\n");
      const after = await prepareStart({ DATABASE_URL: `file:${app.databaseFile}` });
      expect(after.status, after.stderr).toBe(0);
    } finally {
      await app.stop();
    }
  });

  it("answers an unexpected fault with a 500 problem that shows no internals", async () => {
    // A database that lost its users table: registration fails deep inside the server.
    const broken = `${dir}/broken.db`;
    fs.copyFileSync(inject("templateDatabase"), broken);
    const database = new Database(broken);
    database.exec("DROP TABLE User");
    database.close();
    const app = await startAppServer({ DATABASE_URL: `file:${broken}` });
    try {
      const response = await app.fetch("/users/", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "a@example.com", password: "long enough" }),
      });
      expect(response.status).toBe(500);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ status: 500, title: "Internal Server Error" });
      expect(text).not.toMatch(/at .+\.js|prisma|sqlite|User/i);
    } finally {
      await app.stop();
    }
  });
});

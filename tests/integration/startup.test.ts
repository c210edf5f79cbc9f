import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startAppServer } from "../support/app-server";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "startup-test-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function prepareStart(env: Record<string, string>) {
  return spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/prepare-start.ts"], {
    cwd: projectRoot,
    env: { ...process.env, NEXTAUTH_SECRET: undefined, ...env },
    encoding: "utf8",
  });
}

describe("starting the application", () => {
  it("creates and migrates the database by itself, with a generated secret", () => {
    const result = prepareStart({ DATABASE_URL: `file:${dir}/fresh/app.db` });
    expect(result.status, result.stderr).toBe(0);
    expect(fs.existsSync(`${dir}/fresh/app.db`)).toBe(true);
    expect(fs.statSync(`${dir}/fresh/nextauth-secret`).mode & 0o777).toBe(0o600);
  });

  it("prints where the data is and the configuration in use, without Prisma's notes", () => {
    const first = prepareStart({ DATABASE_URL: `file:${dir}/quiet/app.db`, PORT: "4321" });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("http://localhost:4321");
    expect(first.stdout).toMatch(new RegExp(`Data folder +${dir}/quiet\n`));
    expect(first.stdout).toContain(`${dir}/quiet/app.db (migrations applied: 20261122190000_init`);
    expect(first.stdout).toContain(`kept in ${dir}/quiet/nextauth-secret`);
    expect(first.stdout).toContain("builds.config.yaml");
    expect(first.stdout + first.stderr).not.toMatch(/prisma|warn|will NOT be used|dev\.db|deprecated/i);

    const again = prepareStart({ DATABASE_URL: `file:${dir}/quiet/app.db` });
    expect(again.stdout).toContain(`${dir}/quiet/app.db (up to date)`);
  });

  it("stops with a message naming an invalid variable", () => {
    const result = prepareStart({ DATABASE_URL: `file:${dir}/bad/app.db`, RATES_TIMEZONE: "Nowhere/Land" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("RATES_TIMEZONE");
    expect(fs.existsSync(`${dir}/bad/app.db`)).toBe(false);
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

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBuildsConfig } from "@/lib/builds/config";
import {
  postgresqlBinFolder,
  startThrowawayPostgresql,
  type ThrowawayPostgresql,
} from "../../tools/throwaway-postgresql";

/**
 * The Odoo example's `save` and `restore` (examples/odoo16/builds.config.yaml), run as the one-off container runs
 * them (`sh -c <script> <name> <database> <filestore folder>` with HOST, USER, PASSWORD and CACHE_DIR set), against
 * a real PostgreSQL and a filestore folder: a database saved from one build comes back whole into another's, with
 * a database.uuid and database.secret of its own, and its filestore beside it.
 */
const config = loadBuildsConfig(
  path.resolve(import.meta.dirname, "..", "..", "examples", "odoo16", "builds.config.yaml"),
);
const cache = config.runtime.install_cache!;

let pg: ThrowawayPostgresql;
let scratch: string;
beforeAll(async () => {
  pg = await startThrowawayPostgresql();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "odoo-install-cache-"));
});
afterAll(() => {
  pg?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

const env = () => ({
  PATH: `${postgresqlBinFolder()}:${process.env.PATH}`,
  HOST: "127.0.0.1",
  PGPORT: String(pg.port),
  USER: "postgres",
  PASSWORD: "unused-with-trust",
  CACHE_DIR: path.join(scratch, "entry"),
});

function psql(database: string, sql: string): string {
  return execFileSync(
    path.join(postgresqlBinFolder(), "psql"),
    [
      "-h",
      "127.0.0.1",
      "-p",
      String(pg.port),
      "-U",
      "postgres",
      "-d",
      database,
      "-At",
      "-v",
      "ON_ERROR_STOP=1",
      "-c",
      sql,
    ],
    { encoding: "utf8" },
  ).trim();
}

function run(step: typeof cache.save, database: string): string {
  if (typeof step === "string") throw new Error("the example's commands are Compose commands");
  const args = step.command.map((arg) =>
    arg.replace("${DATABASE}", database).replace("/var/lib/odoo/filestore", path.join(scratch, "filestore")),
  );
  return execFileSync(args[0], args.slice(1), {
    env: { ...process.env, ...env() },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("examples/odoo16: install_cache save and restore", { timeout: 120_000 }, () => {
  it("are Compose commands in one-off containers of web, given the build's database", () => {
    for (const step of [cache.save, cache.restore]) {
      expect(step).toMatchObject({ service: "web", mode: "run" });
      expect((step as { command: string[] }).command).toContain("${DATABASE}");
    }
    expect(cache.key_extra).toBe("demo=on");
  });

  it("carry a build's database and filestore into another build's, with a uuid and secret of its own", () => {
    psql("postgres", "CREATE DATABASE build_aaaaaaaaaaaaaaaa");
    const source = "build_aaaaaaaaaaaaaaaa";
    psql(
      source,
      `CREATE TABLE ir_config_parameter (key text PRIMARY KEY, value text NOT NULL);
       INSERT INTO ir_config_parameter VALUES ('database.uuid', 'uuid-of-a'), ('database.secret', 'secret-of-a'), ('web.base.url', 'http://a');
       CREATE TABLE res_partner (id serial PRIMARY KEY, name text NOT NULL);
       INSERT INTO res_partner (name) SELECT 'partner ' || n FROM generate_series(1, 5000) AS n;`,
    );
    const files = path.join(scratch, "filestore", source, "ab");
    fs.mkdirSync(files, { recursive: true });
    fs.writeFileSync(path.join(files, "abcdef0123"), "an attachment");
    fs.mkdirSync(env().CACHE_DIR);

    run(cache.save, source);
    expect(fs.readdirSync(env().CACHE_DIR).sort()).toEqual(["database.dump", "filestore.tar"]);

    const target = "build_bbbbbbbbbbbbbbbb";
    // Twice: the second restore finds the database of the first and starts over.
    for (let attempt = 0; attempt < 2; attempt++) run(cache.restore, target);
    expect(psql(target, "SELECT count(*) FROM res_partner")).toBe("5000");
    expect(psql(target, "SELECT value FROM ir_config_parameter WHERE key = 'web.base.url'")).toBe("http://a");
    const uuid = psql(target, "SELECT value FROM ir_config_parameter WHERE key = 'database.uuid'");
    const secret = psql(target, "SELECT value FROM ir_config_parameter WHERE key = 'database.secret'");
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(secret).toMatch(/^[0-9a-f-]{36}$/);
    expect(secret).not.toBe(uuid);
    expect(psql(source, "SELECT value FROM ir_config_parameter WHERE key = 'database.secret'")).toBe("secret-of-a");
    expect(fs.readFileSync(path.join(scratch, "filestore", target, "ab", "abcdef0123"), "utf8")).toBe("an attachment");
  });
});

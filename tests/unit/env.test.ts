import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getEnv, InvalidEnvironmentError, resetEnvCache } from "@/lib/server/env";

const original = { ...process.env };
let dataDir: string;

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "env-test-"));
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, { PATH: original.PATH, DATABASE_URL: `file:${dataDir}/app.db` });
  resetEnvCache();
});

afterEach(() => {
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, original);
  resetEnvCache();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("lib/server/env", () => {
  it("has defaults that run on a fresh machine", () => {
    const env = getEnv();
    expect(env).toMatchObject({
      PORT: 3000,
      ACCESS_TOKEN_EXPIRE_MINUTES: 30,
      PASSWORD_HASH_COST: 12,
      RATES_TIMEZONE: "America/Caracas",
      BCV_URL: "https://www.bcv.org.ve/",
      BCV_TIMEOUT_MS: 10_000,
      DATA_DIR: dataDir,
    });
  });

  it("names the instance after the machine's host name and PORT unless INSTANCE_NAME says otherwise", () => {
    process.env.PORT = "3100";
    expect(getEnv().INSTANCE_NAME).toBe(`${os.hostname()}:3100`);
    resetEnvCache();
    process.env.INSTANCE_NAME = "builder-2:3000";
    expect(getEnv().INSTANCE_NAME).toBe("builder-2:3000");
  });

  it.each(["build/1", "build 1", "-build", "", "x".repeat(101)])(
    "refuses the instance name %j, naming INSTANCE_NAME",
    (name) => {
      process.env.INSTANCE_NAME = name;
      expect(() => getEnv()).toThrow(/INSTANCE_NAME: must be 1-100 letters/);
    },
  );

  it("keeps INSTANCE_URL, where peers reach this instance, as an origin", () => {
    expect(getEnv().INSTANCE_URL).toBeUndefined();
    resetEnvCache();
    process.env.INSTANCE_URL = "http://10.0.0.11:3000/";
    expect(getEnv().INSTANCE_URL).toBe("http://10.0.0.11:3000");
  });

  it.each([
    "10.0.0.11:3000",
    "ftp://10.0.0.11/",
    "http://10.0.0.11:3000/app",
    "http://user:pw@10.0.0.11/",
    "http://10.0.0.11/?a=1",
  ])("refuses the instance URL %j, naming INSTANCE_URL", (url) => {
    process.env.INSTANCE_URL = url;
    expect(() => getEnv()).toThrow(/INSTANCE_URL: /);
  });

  it("resolves the default database to ./data/app.db under the working directory", () => {
    delete process.env.DATABASE_URL;
    expect(getEnv().DATABASE_URL).toBe(`file:${path.resolve("data/app.db")}`);
  });

  it("generates a secret once, keeps it with mode 0600 and reads it back", () => {
    const first = getEnv().NEXTAUTH_SECRET;
    const file = path.join(dataDir, "nextauth-secret");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    resetEnvCache();
    expect(getEnv().NEXTAUTH_SECRET).toBe(first);
    expect(first.length).toBeGreaterThanOrEqual(32);
  });

  it("uses NEXTAUTH_SECRET when it is set and writes no file", () => {
    process.env.NEXTAUTH_SECRET = "x".repeat(40);
    expect(getEnv().NEXTAUTH_SECRET).toBe("x".repeat(40));
    expect(fs.existsSync(path.join(dataDir, "nextauth-secret"))).toBe(false);
  });

  it("takes a PostgreSQL URL as given, with ./data as the data folder unless DATA_DIR names one", () => {
    process.env.DATABASE_URL = "postgresql://app:secret@127.0.0.1:5432/app";
    process.env.NEXTAUTH_SECRET = "x".repeat(40);
    expect(getEnv()).toMatchObject({
      DATABASE_URL: "postgresql://app:secret@127.0.0.1:5432/app",
      DATA_DIR: path.resolve("data"),
    });
    resetEnvCache();
    process.env.DATA_DIR = dataDir;
    expect(getEnv().DATA_DIR).toBe(dataDir);
  });

  it("requires NEXTAUTH_SECRET on PostgreSQL, where instances share the database and must share the secret", () => {
    process.env.DATABASE_URL = "postgresql://127.0.0.1/app";
    process.env.DATA_DIR = dataDir;
    expect(() => getEnv()).toThrow(/NEXTAUTH_SECRET: required when DATABASE_URL is PostgreSQL/);
    expect(fs.existsSync(path.join(dataDir, "nextauth-secret"))).toBe(false);
  });

  it.each([
    ["PORT", "eighty", /PORT/],
    ["RATES_TIMEZONE", "Mars/Olympus", /RATES_TIMEZONE: must be an IANA time zone/],
    ["BCV_URL", "not a url", /BCV_URL/],
    ["ACCESS_TOKEN_EXPIRE_MINUTES", "-5", /ACCESS_TOKEN_EXPIRE_MINUTES/],
    ["DATABASE_URL", "mysql://db/app", /DATABASE_URL: DATABASE_URL must be a SQLite file URL .* or a PostgreSQL URL/],
    ["NEXTAUTH_SECRET", "short", /NEXTAUTH_SECRET: must be at least 32 characters/],
  ])("stops with a message naming %s when it is invalid", (name, value, message) => {
    process.env[name] = value;
    expect(() => getEnv()).toThrow(InvalidEnvironmentError);
    expect(() => getEnv()).toThrow(message);
  });
});

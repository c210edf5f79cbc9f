import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, freePort, startAppServer } from "../support/app-server";
import { queryDatabase } from "../support/database";

/**
 * PostgreSQL only (project integration-postgresql): an INSTANCE_NAME is held by one live process at a time
 * (lib/cluster/instances.ts). Two live instances under one name would claim builds as the same host, move one
 * heartbeat and clean up each other's builds as their own; so a second one refuses to start, naming the holder,
 * while the same instance started again after a crash or a stop takes its name back.
 */
interface InstanceRow {
  processId: string;
  machine: string;
  pid: number;
  url: string | null;
}

let first: AppServer;
const started: AppServer[] = [];

/**
 * A starting instance watches a holder's heartbeat for two of its periods (a sixth of INSTANCE_LOST_AFTER_SECONDS
 * each) before it takes the name over: 2 s here instead of the default's 10 s, which three tests wait through.
 * Every instance of the file runs with it, the holders beating every second.
 */
const LOST_AFTER = { INSTANCE_LOST_AFTER_SECONDS: "6" };

async function startInstance(name: string): Promise<AppServer> {
  const port = await freePort();
  const app = await startAppServer({
    ...LOST_AFTER,
    DATABASE_URL: first.databaseUrl,
    INSTANCE_NAME: name,
    PORT: String(port),
    INSTANCE_URL: `http://127.0.0.1:${port}`,
  });
  started.push(app);
  return app;
}

function rowOf(name: string): InstanceRow | undefined {
  return queryDatabase<InstanceRow>(
    first,
    {
      sqlite: `SELECT "processId", "machine", "pid", "url" FROM "Instance" WHERE "name" = ?`,
      postgresql: `SELECT "processId", "machine", "pid", "url" FROM "Instance" WHERE "name" = :'params'::json->>0`,
    },
    [name],
  )[0];
}

/** A row as a live or just-lost instance on another machine leaves it, with the shared builds settings of alpha's. */
function instanceElsewhere(name: string, url: string, processId: string): string {
  return `INSERT INTO "Instance" ("name", "url", "startedAt", "heartbeatAt", "builderSlots", "buildsSettings", "buildsFingerprint", "processId", "machine", "pid")
    SELECT '${name}', '${url}', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', 0, "buildsSettings", "buildsFingerprint", '${processId}', 'a-machine-elsewhere', 4242
    FROM "Instance" WHERE "name" = 'alpha'`;
}

async function refusalOf(start: Promise<AppServer>): Promise<string> {
  return start.then(
    (app) => {
      started.push(app);
      throw new Error("the instance started");
    },
    (error: Error) => error.message,
  );
}

beforeAll(async () => {
  const port = await freePort();
  first = await startAppServer({
    ...LOST_AFTER,
    INSTANCE_NAME: "alpha",
    PORT: String(port),
    INSTANCE_URL: `http://127.0.0.1:${port}`,
  });
});
afterAll(async () => {
  for (const app of started.reverse()) await app.stop();
  await first?.stop();
});

describe("INSTANCE_NAME", () => {
  it("is recorded with the holder's random process id, machine and pid", () => {
    const row = rowOf("alpha");
    expect(row?.processId).toMatch(/^[0-9a-f]{24}$/);
    expect(row?.machine).not.toBe("");
    expect(row?.pid).toBeGreaterThan(0);
  });

  it("held by a live instance: a second one under that name refuses to start, naming the holder", {
    timeout: 120_000,
  }, async () => {
    const holder = rowOf("alpha")!;
    const refused = await refusalOf(startInstance("alpha"));
    expect(refused).toMatch(/exited with code 1/);
    expect(refused).toContain(
      `Refusing to start: INSTANCE_NAME alpha is held by a live instance (INSTANCE_URL ${first.baseUrl}, pid ${holder.pid} on ${holder.machine}, started at `,
    );
    // The holder is untouched and goes on.
    expect(rowOf("alpha")?.processId).toBe(holder.processId);
    expect((await first.fetch("/readyz")).status).toBe(200);
  });

  it("of an instance killed (SIGKILL) is taken back by the same instance started again at once", {
    timeout: 120_000,
  }, async () => {
    const before = rowOf("alpha")!;
    await first.stopProcess("SIGKILL");
    // Its heartbeat is still fresh, but the process that holds the name on this machine is gone.
    const again = await startInstance("alpha");
    const after = rowOf("alpha")!;
    expect(after.processId).not.toBe(before.processId);
    expect(after.url).toBe(again.baseUrl);
    expect(again.output()).not.toMatch(/did not move/);
  });

  it("of an instance stopped (SIGTERM) is taken back by the same instance started again at once", {
    timeout: 120_000,
  }, async () => {
    const beta = await startInstance("beta");
    const before = rowOf("beta")!;
    await beta.stopProcess("SIGTERM");
    const again = await startInstance("beta");
    expect(rowOf("beta")?.processId).not.toBe(before.processId);
    expect(again.output()).not.toMatch(/did not move/);
  });

  it("held by another machine's process whose heartbeat is fresh but stands still: taken over after one heartbeat period", {
    timeout: 120_000,
  }, async () => {
    // What a host that lost its power a moment ago leaves: its heartbeat is recent, nobody moves it any more.
    queryDatabase(first, {
      sqlite: "",
      postgresql: instanceElsewhere("gamma", "http://127.0.0.1:9", "feedfeedfeedfeedfeedfeed"),
    });
    const gamma = await startInstance("gamma");
    expect(gamma.output()).toMatch(
      /INSTANCE_NAME gamma was held by pid 4242 on a-machine-elsewhere, whose heartbeat did not move for \d+ s: taking it over/,
    );
    expect(rowOf("gamma")?.machine).not.toBe("a-machine-elsewhere");
  });

  it("held by another machine's process whose heartbeat moves: refused", { timeout: 120_000 }, async () => {
    queryDatabase(first, {
      sqlite: "",
      postgresql: instanceElsewhere("delta", "http://10.1.2.3:3000", "beefbeefbeefbeefbeefbeef"),
    });
    // A live holder elsewhere, as the database sees it: its heartbeat moves every half second.
    const beating = setInterval(() => {
      queryDatabase(first, {
        sqlite: "",
        postgresql: `UPDATE "Instance" SET "heartbeatAt" = now() AT TIME ZONE 'UTC' WHERE "name" = 'delta'`,
      });
    }, 500);
    try {
      const refused = await refusalOf(startInstance("delta"));
      expect(refused).toContain(
        "Refusing to start: INSTANCE_NAME delta is held by a live instance (INSTANCE_URL http://10.1.2.3:3000, pid 4242 on a-machine-elsewhere",
      );
    } finally {
      clearInterval(beating);
    }
    expect(rowOf("delta")?.processId).toBe("beefbeefbeefbeefbeefbeef");
  });
});

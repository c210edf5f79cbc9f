import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuildJson } from "../support/builds";
import { type BuilderPair, startBuilderPair } from "../support/cluster";
import { type OwnPostgresql, startOwnPostgresql } from "../support/postgresql";

/**
 * PostgreSQL only (project integration-postgresql): two live instances, `alpha` running a build and `beta`, through
 * a PostgreSQL outage longer than INSTANCE_LOST_AFTER_SECONDS. Every heartbeat is as old as the outage when the
 * database comes back; an instance judges the others only once it has itself beaten without a break for that time,
 * by when every live instance has beaten again: nobody's build is failed as lost. beta reaches the database on its
 * Unix socket and alpha over TCP, so that the database can come back for beta first, as it does for one instance
 * before another when a failover or their pools reconnect at different times.
 */
const LOST_AFTER_SECONDS = 3;

let database: OwnPostgresql;
let pair: BuilderPair;

beforeAll(async () => {
  database = await startOwnPostgresql();
  pair = await startBuilderPair({
    env: { DATABASE_URL: database.databaseUrl, INSTANCE_LOST_AFTER_SECONDS: String(LOST_AFTER_SECONDS) },
    betaEnv: { DATABASE_URL: database.socketUrl },
  });
});
afterAll(async () => {
  await pair?.stop();
  database?.stop();
});

describe("a PostgreSQL restart longer than INSTANCE_LOST_AFTER_SECONDS", () => {
  it("fails no build of a live instance: each judges the others only after beating unbroken for that long", {
    timeout: 90_000,
  }, async () => {
    const { alpha, beta } = pair;
    const created = await (
      await beta.post({ repositories: [{ repository: "demo" }], modules: ["slow_install"] })
    ).json();
    const installing = await beta.waitForStatus(created.build_id, ["installing"]);
    expect(installing.host).toBe("alpha");

    database.stopServer();
    try {
      await new Promise((resolve) => setTimeout(resolve, (LOST_AFTER_SECONDS + 1.5) * 1000));
      // Back for beta alone for a few of its beats, then for both.
      database.startServer({ tcp: false });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      database.stopServer();
    } finally {
      database.startServer();
    }
    // Both have beaten again, and judged each other, twice over.
    await new Promise((resolve) => setTimeout(resolve, LOST_AFTER_SECONDS * 2 * 1000));
    for (const instance of [alpha, beta]) {
      const build = (await (await instance.get(`/builds/${created.build_id}`)).json()) as BuildJson;
      expect(build.status).toBe("installing");
      expect(instance.app.output()).not.toMatch(/failed the builds of lost hosts/);
    }
  });
});

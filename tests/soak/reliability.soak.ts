import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import {
  type BuildJson,
  type BuildsApp,
  connectBuildsApp,
  expectAllDead,
  fixtureConfig,
  isProcessAlive,
  makeBuildsFixture,
  pidsOfBuild,
  startBuildsApp,
  tearDownBuilds,
} from "../support/builds";
import { queryDatabase } from "../support/database";
import { startOwnPostgresql, TEST_NEXTAUTH_SECRET } from "../support/postgresql";
import { seedRates } from "../support/rates";
import { MB, openStalledStream, residentBytes, type StalledStream } from "../support/sse";

/**
 * The reliability suite (`npm run soak`, after `npm run build`): minutes of load on the built app, on loopback
 * only, each phase bounded in time. It prints a table of what it did and what it saw, and fails when a bound
 * is broken.
 * 1. 200 concurrent clients read rates for 30 s while rates are written (through POST /rates/ and straight into
 *    SQLite from a second connection) and builds run: zero errors, no SQLITE_BUSY.
 * 2. SIGKILL with builds running, in progress and queued, then a restart: nothing stuck, nothing orphaned,
 *    the previews still serve, PRAGMA integrity_check ok.
 * 3. A stage printing 500 MB with eight clients that do not read its stream and one that does: the server's
 *    memory stays within MEMORY_BOUND_MB of where it was, the log stops at stage_log_limit_mb (50 MB).
 * 4. A server on PostgreSQL under readers and writers, its PostgreSQL stopped for OUTAGE_SECONDS in the middle:
 *    every write acknowledged is there afterwards, no answer is a 5xx other than 503, no connection is refused.
 */
const LOAD_SECONDS = Number(process.env.SOAK_LOAD_SECONDS ?? 30);
const CONNECTIONS = 200;
const FLOOD_MB = 500;
const MEMORY_BOUND_MB = 150;
const OUTAGE_SECONDS = 8;
const IN_PROGRESS = ["queued", "checking_out", "installing", "testing", "starting", "destroying"];

// autocannon has no types of its own; it is used through a narrow view of what this suite reads.
type AutocannonResult = {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  "2xx": number;
};
type AutocannonInstance = { on(event: "reqError", listener: (error: Error & { code?: string }) => void): void };
const autocannon = createRequire(import.meta.url)("autocannon") as (
  options: object,
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

const rows: { phase: string; what: string; seen: string; bound: string; ok: boolean }[] = [];
function record(phase: string, what: string, seen: string | number, bound: string, ok: boolean) {
  rows.push({ phase, what, seen: String(seen), bound, ok });
}

function printTable() {
  const headers = ["phase", "what", "seen", "bound", "ok"] as const;
  const cells = rows.map((row) => [row.phase, row.what, row.seen, row.bound, row.ok ? "yes" : "NO"]);
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((cell) => cell[column].length)));
  const line = (values: readonly string[]) =>
    `| ${values.map((value, column) => value.padEnd(widths[column])).join(" | ")} |`;
  console.log(["", line(headers), line(widths.map((width) => "-".repeat(width))), ...cells.map(line), ""].join("\n"));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Caracas" }).format(new Date());

let bcv: BcvServer | undefined;
let before: BuildsApp | undefined;
let after: BuildsApp | undefined;
afterAll(async () => {
  printTable();
  try {
    await tearDownBuilds(after);
  } finally {
    await before?.app.stop();
    await bcv?.stop();
  }
});

const fixture = makeBuildsFixture((partial) =>
  fixtureConfig(partial, { maxConcurrent: 2 }).replace(
    "install: node stages/install.mjs",
    // The `chatty` module floods: FLOOD_MB of 100-byte lines before the usual install.
    `install: case ",$MODULES," in *,chatty,*) yes ${"y".repeat(99)} | head -c ${FLOOD_MB * MB};; esac; node stages/install.mjs`,
  ),
);

/** The processes whose working folder is inside the builds, by build id. */
function processesInBuilds(): Map<string, number[]> {
  const found = new Map<string, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cwd: string;
    try {
      cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
    } catch {
      continue;
    }
    const relative = path.relative(fixture.buildsRoot, cwd);
    if (relative.startsWith("..") || path.isAbsolute(relative) || !isProcessAlive(Number(entry))) continue;
    const buildId = relative.split(path.sep)[0];
    // .mirrors: the server's own git fetches.
    if (buildId.startsWith(".")) continue;
    found.set(buildId, [...(found.get(buildId) ?? []), Number(entry)]);
  }
  return found;
}

describe("soak", () => {
  it(`serves ${CONNECTIONS} concurrent readers for ${LOAD_SECONDS} s while rates are written and builds run`, async () => {
    bcv = await startBcvServer({
      fixturePath: path.resolve(import.meta.dirname, "..", "fixtures", "bcv-home.sample.html"),
    });
    bcv.setRate({ dollar: "240,12345678", date: today() });
    before = await startBuildsApp(fixture, { BCV_URL: bcv.url, LOG_STREAMS_MAX: "50", LOG_STREAMS_PER_CLIENT: "50" });
    const app = before;
    const history = Array.from({ length: 60 }, (_, day) => ({
      date: new Date(Date.UTC(2026, 8, 1 + day)).toISOString().slice(0, 10),
      dollar: (200 + day / 7).toFixed(8),
    }));
    seedRates(app.app, history);

    // Builds at work through the load: two started before it, one more every few seconds during it.
    for (let index = 0; index < 2; index++) {
      const response = await app.post({ repository: "demo", ref: "main", modules: ["base_mod"] });
      expect(response.status).toBe(202);
    }
    const loadBefore = os.loadavg()[0];
    let loading = true;
    const writes = {
      api: 0,
      apiFailed: [] as string[],
      direct: 0,
      directFailed: [] as string[],
      builds: 0,
      buildsRefused: [] as number[],
    };
    const apiWriter = (async () => {
      while (loading) {
        const response = await app.app.fetch("/rates/", { method: "POST", headers: app.authorization });
        if (response.ok) writes.api++;
        else writes.apiFailed.push(`${response.status} ${await response.text()}`);
        await response.body?.cancel().catch(() => {});
        await sleep(100);
      }
    })();
    // A second connection writing the same table, as an import or an operator's tool would.
    const directWriter = (async () => {
      let round = 0;
      while (loading) {
        try {
          seedRates(app.app, [history[round++ % history.length]]);
          writes.direct++;
        } catch (error) {
          writes.directFailed.push((error as Error).message);
        }
        await sleep(50);
      }
    })();
    const builder = (async () => {
      while (loading) {
        const response = await app.post({ repository: "demo", ref: "main", modules: ["base_mod"] });
        if (response.status === 202) writes.builds++;
        else writes.buildsRefused.push(response.status);
        await response.body?.cancel().catch(() => {});
        await sleep(3_000);
      }
    })();
    const requestErrors = new Map<string, number>();
    const load = await new Promise<AutocannonResult>((resolve, reject) => {
      const options = {
        url: app.app.baseUrl,
        connections: CONNECTIONS,
        duration: LOAD_SECONDS,
        // A slow answer is measured (the latency row), not abandoned: only a failure counts as an error.
        timeout: 60,
        requests: [
          { method: "GET", path: "/rates/" },
          { method: "GET", path: "/rates/history?start_date=2026-09-01&end_date=2026-10-30" },
          { method: "GET", path: "/rates/2026-09-15" },
        ],
      };
      const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
      instance.on("reqError", (error) => {
        const kind = error.code ?? error.message;
        requestErrors.set(kind, (requestErrors.get(kind) ?? 0) + 1);
      });
    });
    loading = false;
    await Promise.all([apiWriter, directWriter, builder]);
    const busy = (app.app.output().match(/SQLITE_BUSY|database is locked/g) ?? []).length;

    record(
      "load",
      "machine: cores, load average before / after",
      `${os.cpus().length}, ${loadBefore.toFixed(1)} / ${os.loadavg()[0].toFixed(1)}`,
      "-",
      true,
    );
    record(
      "load",
      `GET rates, ${CONNECTIONS} clients, ${LOAD_SECONDS} s`,
      `${load.requests.total} requests, ${load.requests.average}/s`,
      "-",
      true,
    );
    record(
      "load",
      "read latency p50 / p99 / max",
      `${load.latency.p50} / ${load.latency.p99} / ${load.latency.max} ms`,
      "-",
      true,
    );
    const errorKinds = [...requestErrors].map(([kind, count]) => `${kind} x${count}`).join(" ");
    record(
      "load",
      "read errors, timeouts, non-2xx",
      `${load.errors}, ${load.timeouts}, ${load.non2xx}${errorKinds ? ` (${errorKinds})` : ""}`,
      "0, 0, 0",
      load.errors + load.timeouts + load.non2xx === 0,
    );
    record(
      "load",
      "POST /rates/ stored / failed",
      `${writes.api} / ${writes.apiFailed.length}`,
      "failed 0",
      writes.apiFailed.length === 0,
    );
    record(
      "load",
      "direct SQLite writes ok / failed",
      `${writes.direct} / ${writes.directFailed.length}`,
      "failed 0",
      writes.directFailed.length === 0,
    );
    record(
      "load",
      "builds accepted / refused",
      `${writes.builds + 2} / ${writes.buildsRefused.length}`,
      "refused 0",
      writes.buildsRefused.length === 0,
    );
    record("load", "SQLITE_BUSY in the server's output", busy, "0", busy === 0);
    expect(load.errors + load.timeouts + load.non2xx).toBe(0);
    expect(load["2xx"]).toBeGreaterThan(0);
    expect(writes.apiFailed).toEqual([]);
    expect(writes.directFailed).toEqual([]);
    expect(writes.buildsRefused).toEqual([]);
    expect(busy).toBe(0);
  });

  it("recovers from SIGKILL with builds running, in progress and queued: nothing stuck, nothing orphaned", async () => {
    const app = before!;
    // Let the builds of the load phase settle, so the roles below are clear.
    const { builds: listed } = (await (await app.get("/builds?limit=100")).json()) as { builds: BuildJson[] };
    const settled: BuildJson[] = [];
    for (const build of listed) settled.push(await app.waitForStatus(build.build_id, ["running", "failed"], 120_000));
    const alive = settled.filter((build) => build.status === "running");
    expect(alive.length).toBeGreaterThan(0);

    // Two installs that wait a minute fill both slots; three more wait in the queue.
    const inProgress: string[] = [];
    for (let index = 0; index < 2; index++) {
      const created = (await (
        await app.post({ repository: "demo", ref: "main", modules: ["slow_install"] })
      ).json()) as BuildJson;
      inProgress.push(created.build_id);
    }
    const queued: string[] = [];
    for (let index = 0; index < 3; index++) {
      const created = (await (
        await app.post({ repository: "demo", ref: "main", modules: ["extra_mod"] })
      ).json()) as BuildJson;
      queued.push(created.build_id);
    }
    for (const id of inProgress) await app.waitForStatus(id, ["installing"]);
    const interruptedPids: number[] = [];
    for (const id of inProgress) {
      let pids: number[] = [];
      const deadline = Date.now() + 10_000;
      while (pids.length < 2 && Date.now() < deadline) pids = await pidsOfBuild(app, id);
      interruptedPids.push(...pids);
    }

    const killedAt = Date.now();
    await app.app.stopProcess("SIGKILL");
    const restarted = await startAppServer({
      BUILDS_CONFIG: fixture.configFile,
      DATABASE_URL: `file:${app.app.databaseFile}`,
      BCV_URL: bcv!.url,
    });
    after = connectBuildsApp(restarted, fixture, app.authorization);
    const restartMs = Date.now() - killedAt;

    for (const id of inProgress) {
      expect(await after.waitForStatus(id, ["failed"], 10_000)).toMatchObject({ failure_stage: "recovery" });
    }
    for (const id of queued) await after.waitForStatus(id, ["running", "failed"], 120_000);
    await expectAllDead(interruptedPids);
    const { builds: all } = (await (await after.get("/builds?limit=100")).json()) as { builds: BuildJson[] };
    const stuck = all.filter((build) => IN_PROGRESS.includes(build.status));
    const runningIds = new Set(all.filter((build) => build.status === "running").map((build) => build.build_id));
    // A process in a build's folder belongs to a running build's runtime, or it is an orphan.
    await sleep(500);
    const orphans = [...processesInBuilds()]
      .filter(([buildId]) => !runningIds.has(buildId))
      .flatMap(([, pids]) => pids);
    let previewsServing = 0;
    for (const build of alive) {
      const view = (await (await after.get(`/builds/${build.build_id}`)).json()) as BuildJson;
      if (view.status === "running" && (await fetch(view.preview_url!)).status === 200) previewsServing++;
    }
    const database = new Database(app.app.databaseFile, { readonly: true });
    const integrity = (database.pragma("integrity_check") as { integrity_check: string }[])
      .map((row) => row.integrity_check)
      .join(", ");
    database.close();

    record(
      "crash",
      "builds running / in progress / queued at SIGKILL",
      `${alive.length} / ${inProgress.length} / ${queued.length}`,
      "-",
      true,
    );
    record("crash", "restart until serving", `${restartMs} ms`, "-", true);
    record(
      "crash",
      "interrupted builds failed at recovery",
      `${inProgress.length} of ${inProgress.length}`,
      "all",
      true,
    );
    record("crash", "queued builds run after the restart", `${queued.length} of ${queued.length}`, "all", true);
    record("crash", "builds stuck in progress", stuck.length, "0", stuck.length === 0);
    record(
      "crash",
      "previews of running builds serving",
      `${previewsServing} of ${alive.length}`,
      "all",
      previewsServing === alive.length,
    );
    record("crash", "orphaned processes", orphans.length, "0", orphans.length === 0);
    record("crash", "PRAGMA integrity_check", integrity, "ok", integrity === "ok");
    expect(stuck).toEqual([]);
    expect(previewsServing).toBe(alive.length);
    expect(orphans).toEqual([]);
    expect(integrity).toBe("ok");
  });

  it(`keeps memory bounded while a stage prints ${FLOOD_MB} MB to stalled and reading streams`, async () => {
    const app = after!;
    const created = (await (
      await app.post({ repository: "demo", ref: "main", modules: ["chatty"] })
    ).json()) as BuildJson;
    await app.waitForStatus(created.build_id, ["installing", "testing", "running", "failed"], 120_000);
    const baseline = residentBytes(app.app.pid);
    const streamUrl = `${app.app.baseUrl}/builds/${created.build_id}/logs/stream?stage=install`;
    const stalled: StalledStream[] = [];
    for (let client = 0; client < 8; client++) stalled.push(await openStalledStream(streamUrl));
    let peak = baseline;
    let writerPeak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(app.app.pid));
      for (const pid of processesInBuilds().get(created.build_id) ?? []) {
        try {
          if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("stage_log_limit_mb"))
            writerPeak = Math.max(writerPeak, residentBytes(pid));
        } catch {
          /* gone */
        }
      }
    }, 100);
    const started = Date.now();
    let received = 0;
    let ended = false;
    try {
      const reading = await app.app.fetch(`/builds/${created.build_id}/logs/stream?stage=install`);
      const reader = reading.body!.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        received += value.length;
        if (Buffer.from(value).includes("event: end\n")) ended = true;
      }
      await app.waitForStatus(created.build_id, ["running", "failed"], 180_000);
      await sleep(2_000);
    } finally {
      clearInterval(sampler);
      for (const stream of stalled) stream.close();
    }
    const seconds = (Date.now() - started) / 1000;
    const view = (await (await app.get(`/builds/${created.build_id}`)).json()) as BuildJson;
    const logSize = fs.statSync(path.join(fixture.buildsRoot, created.build_id, "logs", "install.log")).size;
    const growthMb = (peak - baseline) / MB;

    record(
      "flood",
      `install prints ${FLOOD_MB} MB, 8 stalled + 1 reading stream`,
      `${seconds.toFixed(1)} s, install ${view.stages.find((s) => s.name === "install")?.status}`,
      "succeeded",
      view.status === "running",
    );
    record(
      "flood",
      "install log on disk",
      `${(logSize / MB).toFixed(2)} MB`,
      "50 MB + a note",
      logSize <= 50 * MB + 1_000,
    );
    record(
      "flood",
      "reading stream received, ended",
      `${(received / MB).toFixed(1)} MB, ${ended}`,
      "the log, true",
      ended,
    );
    record(
      "flood",
      "server RSS before / peak",
      `${(baseline / MB).toFixed(0)} / ${(peak / MB).toFixed(0)} MB (+${growthMb.toFixed(0)})`,
      `+${MEMORY_BOUND_MB} MB`,
      growthMb < MEMORY_BOUND_MB,
    );
    record("flood", "log writer RSS peak", `${(writerPeak / MB).toFixed(0)} MB`, "-", true);
    expect(view.status).toBe("running");
    expect(logSize).toBeLessThanOrEqual(50 * MB + 1_000);
    expect(ended).toBe(true);
    expect(growthMb).toBeLessThan(MEMORY_BOUND_MB);
  });

  it(`keeps every acknowledged write through a PostgreSQL outage of ${OUTAGE_SECONDS} s under load, answering 503 meanwhile`, {
    timeout: 180_000,
  }, async () => {
    const database = await startOwnPostgresql();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "soak-postgresql-"));
    const app = await startAppServer({
      DATABASE_URL: database.databaseUrl,
      NEXTAUTH_SECRET: TEST_NEXTAUTH_SECRET,
      DATA_DIR: dataDir,
      BUILDS_CONFIG: fixture.configFile,
    });
    try {
      seedRates(app, [{ date: "2026-03-02", dollar: "410" }]);
      const statuses = new Map<number, number>();
      let refused = 0;
      const acknowledged: string[] = [];
      let running = true;
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const reader = async () => {
        while (running) {
          for (const pathname of ["/rates/", "/builds", "/rates/status", "/readyz"]) {
            try {
              const response = await app.fetch(pathname);
              await response.arrayBuffer();
              count(response.status);
            } catch {
              refused++;
            }
          }
        }
      };
      const writer = async (index: number) => {
        for (let n = 0; running; n++) {
          const email = `soak-${index}-${n}@example.com`;
          try {
            const response = await app.fetch("/users/", {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ email, password: "correct horse battery" }),
            });
            await response.arrayBuffer();
            count(response.status);
            if (response.status === 201) acknowledged.push(email);
          } catch {
            refused++;
          }
        }
      };
      const load = Promise.all([...Array.from({ length: 16 }, reader), writer(0), writer(1)]);
      await sleep(8_000);
      const stoppedAt = Date.now();
      database.stopServer();
      await sleep(OUTAGE_SECONDS * 1000);
      database.startServer();
      const backAt = Date.now();
      await sleep(10_000);
      running = false;
      await load;

      const present = new Set(
        queryDatabase<{ email: string }>(app, `SELECT "email" FROM "User" WHERE "email" LIKE 'soak-%'`).map(
          (row) => row.email,
        ),
      );
      const lost = acknowledged.filter((email) => !present.has(email));
      const fiveHundreds = [...statuses].filter(([status]) => status >= 500 && status !== 503);
      const summary = [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, times]) => `${status}: ${times}`)
        .join(", ");
      record("postgresql", "answers by status", summary, "no 5xx but 503", fiveHundreds.length === 0);
      record("postgresql", "outage", `${((backAt - stoppedAt) / 1000).toFixed(1)} s`, "-", true);
      record(
        "postgresql",
        "writes acknowledged / lost",
        `${acknowledged.length} / ${lost.length}`,
        "0 lost",
        lost.length === 0,
      );
      record("postgresql", "connections refused", refused, "0", refused === 0);
      expect(fiveHundreds).toEqual([]);
      expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
      expect(lost).toEqual([]);
      expect(refused).toBe(0);
      expect((await app.fetch("/readyz")).status).toBe(200);
    } finally {
      await app.stop();
      database.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

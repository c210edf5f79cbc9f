/**
 * `npm run bench` (after `npm run build`; builds nothing itself): measures in one run, on loopback,
 * - the machine's limit (node:http answering constant JSON) and the framework's floor (a bare Next.js app,
 *   bench/baselines/next, built and started as the product is, answering the same constant from a route), each
 *   also with a body the size of the 10-year history, which is that read's floor and limit: writing 155 KB costs
 *   the server and the client (on the same cores) more than 40 bytes do, whatever the app does; and from a route
 *   with a path parameter, the floor of /rates/{date}: Next matches and parses a dynamic segment on every request;
 * - the app's four rate reads on a database of 3,700 daily rates, straight and through nginx
 *   (deploy/nginx/bcv-rates.conf, cache hits), and the 10-year history again while another connection writes a
 *   table other than the rates every 10 ms (as running builds do), which must not empty the read cache;
 * - the same four reads from a second instance of the app on PostgreSQL (a throwaway local cluster, as the
 *   tests start; Debian's postgresql-15 or later), each measured right beside its SQLite twin, which one first
 *   changing round by round: what the bigger database costs a read (0.9× at least is the goal).
 *   BENCH_POSTGRESQL=0 leaves it out;
 * - the build service: POST to first stage with a free slot over 100 builds whose stages take no time, a
 *   burst of 40 POST /builds (answer times and queue drain), and a log line's delay to an SSE client; then the
 *   same (but the log line) across two builder instances of one PostgreSQL database with a slot each, the
 *   POSTs taking turns between them.
 * Prints a table with ratios and writes bench/results/latest.json. The machine is usually shared: compare
 * ratios within one run, not absolute figures across runs.
 *
 * Each read is warmed up for BENCH_WARMUP_SECONDS (2), then measured in BENCH_ROUNDS rounds (5) of
 * BENCH_SECONDS (8), the targets taking turns (the app's in an order that moves each round), and each figure is
 * the median of its rounds, each ratio the median of the ratios within a round: load from other processes then
 * weighs on every target alike instead of on whichever ran during a spike.
 * - the previews' gateway (bench/gateway.ts): a preview's small page through it against a plain nginx proxy_pass,
 *   and what each adds to the preview reached directly.
 * Other settings: BENCH_CONNECTIONS (64), BENCH_BUILDS (100), BENCH_BURST (40), BENCH_ONLY=reads|builds|gateway,
 * BENCH_CPU_PROF=<folder> (each instance of the app runs under `node --cpu-prof` and writes its profile there when stopped;
 * summarise it with `npm run bench:profile -- --summarise <file>`), BENCH_NODE_ARGS (more options for the
 * app's node, e.g. "--max-semi-space-size=32").
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { type NginxServer, startNginx } from "../tests/support/nginx";
import { startThrowawayPostgresql, type ThrowawayPostgresql } from "../tools/throwaway-postgresql";
import { type GatewayResult, measureGateway } from "./gateway";
import { makeBuildsBench } from "./support/builds";
import { type LoadResult, measureLoad } from "./support/load";
import { SEEDED_DAYS, seedDailyRates, seedDailyRatesPostgresql, shiftDate } from "./support/seed";
import {
  assertBuilt,
  buildBareNext,
  makeDatabase,
  migrateDatabase,
  projectRoot,
  type Server,
  startApp,
  startBareNext,
  startNodeHttp,
  stopEveryServer,
} from "./support/servers";

/**
 * What to stop if the run is interrupted (Ctrl-C, kill): the servers, nginx and the PostgreSQL cluster run in their
 * own process groups, so they would outlive the benchmark and load the machine. The servers (stopEveryServer) go
 * first, then what is added here as it is made, in the reverse order.
 */
const stopOnInterrupt: (() => unknown)[] = [];
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  // `on`, not `once`: npm and tsx pass the same signal on, and a second one must not end the cleanup.
  process.on(signal, async () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping what the benchmark started`);
    await stopEveryServer();
    for (const stop of stopOnInterrupt.reverse()) await Promise.resolve(stop()).catch(() => {});
    process.exit(130);
  });
}

const settings = {
  // 8 s: long enough that every round of the app holds full garbage collections (support/gc-counter.mjs), which
  // set its p99; with 4 s, a round's p99 depended on whether one fell into it.
  durationSeconds: Number(process.env.BENCH_SECONDS ?? 8),
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 64),
  builds: Number(process.env.BENCH_BUILDS ?? 100),
  burst: Number(process.env.BENCH_BURST ?? 40),
  only: process.env.BENCH_ONLY as "reads" | "builds" | "gateway" | undefined,
  postgresql: process.env.BENCH_POSTGRESQL !== "0",
};
const POSTGRESQL_SECRET = "bench-secret-bench-secret-bench-secret-1234";

const FLOOR_BODY = JSON.stringify({ dollar: 236.4587, date: "2026-11-23" });

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (value: number, digits = 0) => Number(value.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ReadRow extends LoadResult {
  name: string;
  /** Against the floor of the read's size (the 10-year history) or the small one (the others). */
  ratioToFloor?: number;
  /** The 10-year history against the small floor, for comparison. */
  ratioToSmallFloor?: number;
  p99RatioToFloor?: number;
  ratioToLimit: number;
  cpuRatioToFloor?: number;
  /** Full garbage collections of the app per 10,000 requests answered, over all rounds. */
  fullGcsPer10kRequests?: number;
  /** On PostgreSQL: against the same read on SQLite (req/s). */
  ratioToSqlite?: number;
}

type GcCounts = { full: number; fullPauseMs: number };

/** A server's garbage collections so far (bench/support/gc-counter.mjs). */
async function gcCounts(gcUrl: string): Promise<GcCounts> {
  const response = await fetch(gcUrl);
  if (!response.ok) throw new Error(`${gcUrl} answered ${response.status}`);
  return (await response.json()) as GcCounts;
}

/**
 * While it runs, another connection writes a table other than the rates every 10 ms (what a running build's
 * stage updates or a sign-in do): the rate reads' cache must not lose its entries to that.
 */
function writeOtherTableEvery10Ms(databaseFile: string): () => void {
  const database = new Database(databaseFile);
  // The bench's own writes need not survive a crash; an fsync per insert would stall the load generator.
  database.pragma("synchronous = OFF");
  const insert = database.prepare(`INSERT INTO "RevokedSession" ("sid", "expiresAt") VALUES (?, ?)`);
  let written = 0;
  const timer = setInterval(() => insert.run(`bench-${process.pid}-${written++}`, new Date().toISOString()), 10);
  return () => {
    clearInterval(timer);
    database.prepare(`DELETE FROM "RevokedSession" WHERE "sid" LIKE 'bench-%'`).run();
    database.close();
  };
}

async function measureReads(
  app: Server,
  nginx: NginxServer,
  today: string,
  databaseFile: string,
  postgresqlApp?: Server,
) {
  const longHistory = `/rates/history?start_date=${shiftDate(today, -3660)}&end_date=${today}`;
  const longHistoryBytes = (await (await fetch(app.baseUrl + longHistory)).arrayBuffer()).byteLength;
  const limitServer = await startNodeHttp(FLOOR_BODY);
  const floorServer = await startBareNext();
  const sizedLimitServer = await startNodeHttp(`--bytes=${longHistoryBytes}`);
  const load = (url: string, warmupSeconds: number, serverProcessGroup: number) =>
    measureLoad(url, {
      connections: settings.connections,
      durationSeconds: settings.durationSeconds,
      warmupSeconds,
      serverProcessGroup,
    });
  try {
    const dateRead = `/rates/${shiftDate(today, -100)}`;
    const reads: [string, string][] = [
      ["/rates/", "/rates/"],
      ["/rates/{date}", dateRead],
      ["/rates/history (30 d)", "/rates/history"],
      ["/rates/history (10 years)", longHistory],
    ];
    const sizedName = `constant JSON of the 10-year history's size, ${Math.round(longHistoryBytes / 1000)} KB`;
    type Target = {
      name: string;
      url: string;
      kind: "limit" | "floor" | "app" | "nginx";
      /** Compared with the limit and floor of the 10-year history's size. */
      sized?: boolean;
      /** Compared with the floor of a route with a path parameter (what /rates/{date} is). */
      segment?: boolean;
      pgid: number;
      rounds: (LoadResult & { fullGcs?: number })[];
      /** Where the server's garbage collections are counted, for each round's. */
      gcUrl?: string;
      /** Started before each round of this target, stopped after it. */
      during?: () => () => void;
      /** On PostgreSQL: the name of the same read on SQLite. */
      sqliteTwin?: string;
    };
    const appTarget = (name: string, pathname: string, kind: Target["kind"] = "app"): Target => ({
      name,
      url: app.baseUrl + pathname,
      kind,
      sized: pathname === longHistory,
      segment: pathname === dateRead,
      pgid: app.child.pid!,
      rounds: [],
      gcUrl: app.gcUrl,
    });
    const floorTarget = (name: string, pathname: string): Target => ({
      name,
      url: floorServer.baseUrl + pathname,
      kind: "floor",
      pgid: floorServer.child.pid!,
      rounds: [],
      gcUrl: floorServer.gcUrl,
    });
    const targets: Target[] = [
      {
        name: "node:http, constant JSON (the limit)",
        url: `${limitServer.baseUrl}/`,
        kind: "limit",
        pgid: limitServer.child.pid!,
        rounds: [],
      },
      {
        name: `node:http, ${sizedName} (its limit)`,
        url: `${sizedLimitServer.baseUrl}/`,
        kind: "limit",
        sized: true,
        pgid: sizedLimitServer.child.pid!,
        rounds: [],
      },
      floorTarget("Next.js route, constant JSON (the floor)", "/floor"),
      { ...floorTarget(`Next.js route, ${sizedName} (its floor)`, `/floor?bytes=${longHistoryBytes}`), sized: true },
      // The same constant from a route with a path parameter: what Next's matching of a dynamic segment adds,
      // which /rates/{date} pays too. /rates/{date} is compared with it, as the 10-year history is with the floor
      // of its size.
      {
        ...floorTarget("Next.js route with a path parameter, constant JSON (its floor)", "/segment"),
        segment: true,
      },
      ...reads.map(([name, pathname]) => appTarget(`app ${name}`, pathname)),
      {
        ...appTarget("app /rates/history (10 years), another table written every 10 ms", longHistory),
        during: () => writeOtherTableEvery10Ms(databaseFile),
      },
      ...(postgresqlApp
        ? reads.map(
            ([name, pathname]): Target => ({
              ...appTarget(`app on PostgreSQL ${name}`, pathname),
              url: postgresqlApp.baseUrl + pathname,
              pgid: postgresqlApp.child.pid!,
              gcUrl: postgresqlApp.gcUrl,
              sqliteTwin: `app ${name}`,
            }),
          )
        : []),
      ...reads.map(
        ([name, pathname]): Target => ({
          name: `nginx cache ${name}`,
          url: nginx.baseUrl + pathname,
          kind: "nginx",
          sized: pathname === longHistory,
          pgid: nginx.pid,
          rounds: [],
        }),
      ),
    ];
    // A warm-up pass over every target first (the JIT compiles each route's own code), then the measured rounds.
    for (const target of targets) {
      await measureLoad(target.url, {
        connections: settings.connections,
        durationSeconds: settings.warmupSeconds,
        warmupSeconds: 0,
      });
    }
    let previousServer: number | undefined;
    // The app's targets take turns in an order that moves round by round, so that none is always the first to run
    // after the app sat idle or always the one after the 10-year history's garbage.
    const onApp = targets.filter((target) => target.gcUrl && !target.sqliteTwin);
    // Each read on PostgreSQL runs right beside its SQLite twin, first in one round and second in the next. When
    // they took turns with the others, up to a minute apart, the pair measured its place in the order as much as
    // the database: PostgreSQL's 10-year history came out at 0.58-0.90x of SQLite's in the rounds where it ran
    // after SQLite's and up to 1.57x where it ran first, and at 1.09-1.81x in both orders when run side by side
    // (docs/performance.md).
    const postgresqlTwin = new Map(
      targets.filter((target) => target.sqliteTwin).map((target) => [target.sqliteTwin!, target]),
    );
    const paired = new Set([...postgresqlTwin.keys(), ...[...postgresqlTwin.values()].map((target) => target.name)]);
    for (let round = 0; round < settings.rounds; round++) {
      const shift = (round * 3) % onApp.length;
      const withTwins = (target: Target) => {
        const twin = postgresqlTwin.get(target.name);
        if (!twin) return [target];
        return round % 2 === 0 ? [target, twin] : [twin, target];
      };
      const roundOrder = [
        ...targets.filter((target) => target.kind === "limit"),
        ...[...onApp.slice(shift), ...onApp.slice(0, shift)].flatMap(withTwins),
        ...targets.filter((target) => target.kind === "nginx"),
      ];
      for (const target of roundOrder) {
        // A server that sat idle while the others were measured has let V8 shrink its heap: its first seconds
        // under load then run more full collections than the next target's would. Warm it up again first. Both
        // of a pair are warmed up on their own read, so that neither starts on what the target before it left.
        if (target.pgid !== previousServer || paired.has(target.name)) {
          await measureLoad(target.url, {
            connections: settings.connections,
            durationSeconds: settings.warmupSeconds,
            warmupSeconds: 0,
          });
        }
        previousServer = target.pgid;
        const gcBefore = target.gcUrl ? await gcCounts(target.gcUrl) : undefined;
        const stopDuring = target.during?.();
        const result = await load(target.url, 0, target.pgid).finally(stopDuring);
        const fullGcs = gcBefore ? (await gcCounts(target.gcUrl!)).full - gcBefore.full : undefined;
        target.rounds.push({ ...result, fullGcs });
        console.error(
          `  round ${round + 1} ${target.name}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.latencyP99Ms} ms, ${result.cpuMicrosPerRequest} µs CPU/request` +
            (fullGcs === undefined ? "" : `, ${fullGcs} full GCs`),
        );
        // A figure measured on failing answers says nothing about the read: stop rather than print it. A socket
        // error or two in a round of tens of thousands (a connection cut as the round ends) is noted, not fatal.
        const answered = result.requestsPerSecond * settings.durationSeconds;
        if (result.errors + result.non2xx > 0)
          console.error(`  ! ${result.errors} errors, ${result.non2xx} non-2xx answers`);
        if (result.non2xx > 0 || result.errors > answered / 1000) {
          throw new Error(`${target.name} (${target.url}): ${result.errors} errors, ${result.non2xx} non-2xx answers`);
        }
      }
    }
    const median = (values: number[]) => percentile(values, 50);
    const measured = targets.map(({ name, url, kind, sized, segment, rounds, sqliteTwin }) => ({
      name,
      sqliteTwin,
      kind,
      sized: sized ?? false,
      segment: segment ?? false,
      rounds,
      result: {
        url,
        requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
        requests: rounds.reduce((sum, r) => sum + r.requests, 0),
        latencyP50Ms: median(rounds.map((r) => r.latencyP50Ms)),
        latencyP99Ms: median(rounds.map((r) => r.latencyP99Ms)),
        errors: rounds.reduce((sum, r) => sum + r.errors, 0),
        non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
        bytesPerRequest: rounds[0].bytesPerRequest,
        cpuMicrosPerRequest: median(rounds.map((r) => r.cpuMicrosPerRequest ?? NaN)),
        rounds: rounds.map((r) => ({
          requestsPerSecond: Math.round(r.requestsPerSecond),
          latencyP99Ms: r.latencyP99Ms,
          cpuMicrosPerRequest: r.cpuMicrosPerRequest,
          fullGcs: r.fullGcs,
        })),
        fullGcsPer10kRequests: rounds.every((r) => r.fullGcs !== undefined)
          ? round(
              (rounds.reduce((sum, r) => sum + r.fullGcs!, 0) * 10_000) /
                rounds.reduce((sum, r) => sum + r.requestsPerSecond * settings.durationSeconds, 0),
              1,
            )
          : undefined,
      },
    }));
    const reference = (kind: Target["kind"], sized: boolean, segment = false) =>
      measured.find((m) => m.kind === kind && m.sized === sized && m.segment === segment)!;
    const smallFloor = reference("floor", false);
    // Each ratio is the median of the ratios of the same round: the machine's load drifts between rounds (the
    // floor moved between 834 and 1,336 req/s in one run), and a round's figures share its load.
    type Round = (typeof targets)[number]["rounds"][number];
    const pairedRatio = (rounds: Round[], base: Round[], figure: (round: Round) => number) =>
      round(median(rounds.map((r, index) => figure(r) / figure(base[index]))), 2);
    const requestsPerSecond = (r: Round) => r.requestsPerSecond;
    return measured.map(({ name, result, kind, sized, segment, rounds, sqliteTwin }): ReadRow => {
      const limit = reference("limit", sized).rounds;
      const floor = reference("floor", sized, segment).rounds;
      const toFloor = kind === "app" || kind === "floor";
      return {
        name,
        ...result,
        requestsPerSecond: round(result.requestsPerSecond),
        ratioToFloor: toFloor ? pairedRatio(rounds, floor, requestsPerSecond) : undefined,
        ratioToSmallFloor:
          toFloor && (sized || segment) ? pairedRatio(rounds, smallFloor.rounds, requestsPerSecond) : undefined,
        p99RatioToFloor: toFloor ? pairedRatio(rounds, floor, (r) => r.latencyP99Ms) : undefined,
        ratioToLimit: round(median(rounds.map((r, index) => r.requestsPerSecond / limit[index].requestsPerSecond)), 3),
        cpuRatioToFloor: toFloor ? pairedRatio(rounds, floor, (r) => r.cpuMicrosPerRequest ?? NaN) : undefined,
        ratioToSqlite: sqliteTwin
          ? pairedRatio(rounds, measured.find((m) => m.name === sqliteTwin)!.rounds, requestsPerSecond)
          : undefined,
      };
    });
  } finally {
    await limitServer.stop();
    await sizedLimitServer.stop();
    await floorServer.stop();
  }
}

type BuildJson = {
  build_id: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  failure_stage: string | null;
  failure_message: string | null;
  stages: { name: string; started_at: string | null }[];
};

/**
 * The build service through `apps`: one instance, or several builder instances of one PostgreSQL database,
 * each POST going to the next instance in turn (the builds are claimed by whichever has a free slot).
 */
async function measureBuilds(apps: Server[], options: { sseLines: boolean }) {
  const [app] = apps;
  let turn = 0;
  const nextApp = () => apps[turn++ % apps.length];
  const email = `bench-${Date.now()}@example.com`;
  const password = "a long bench password";
  const registered = await fetch(`${app.baseUrl}/users/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (registered.status !== 201)
    throw new Error(`registration answered ${registered.status}: ${await registered.text()}`);
  const token = await fetch(`${app.baseUrl}/users/token`, {
    method: "POST",
    body: new URLSearchParams({ username: email, password }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const headers = { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json" };
  const post = async (modules: string[]) => {
    const response = await fetch(`${nextApp().baseUrl}/builds`, {
      method: "POST",
      headers,
      body: JSON.stringify({ repositories: [{ repository: "demo" }], modules }),
    });
    if (response.status !== 202) throw new Error(`POST /builds answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as BuildJson;
  };
  const get = async (id: string) => (await (await fetch(`${app.baseUrl}/builds/${id}`)).json()) as BuildJson;
  const settled = (build: BuildJson) =>
    !["queued", "checking_out", "installing", "testing", "starting"].includes(build.status);

  // POST to the first stage's start, one build at a time (a slot is always free).
  const toFirstStage: number[] = [];
  const createdToFirstStage: number[] = [];
  const postAnswer: number[] = [];
  for (let index = 0; index < settings.builds; index++) {
    const sent = Date.now();
    const { build_id } = await post(["hello"]);
    postAnswer.push(Date.now() - sent);
    // The times come from the server's timestamps; polling only tells when the slot is free again, gently,
    // since every poll is a request the server serves meanwhile.
    let build: BuildJson;
    for (;;) {
      await sleep(50);
      build = await get(build_id);
      if (settled(build)) break;
    }
    if (build.status !== "running") {
      throw new Error(`build ${build_id} ended ${build.status} at ${build.failure_stage}: ${build.failure_message}`);
    }
    const first = Date.parse(build.stages[0].started_at!);
    toFirstStage.push(first - sent);
    createdToFirstStage.push(first - Date.parse(build.created_at));
  }

  // A burst: every POST at once. Answer times (the mirror fetch is shared), and the time to drain the queue.
  const burstStart = Date.now();
  const burstAnswers: number[] = [];
  const burst = await Promise.all(
    Array.from({ length: settings.burst }, async () => {
      const sent = Date.now();
      const build = await post(["hello"]);
      burstAnswers.push(Date.now() - sent);
      return build.build_id;
    }),
  );
  // One list request every half second: the drain time comes from the builds' own timestamps.
  for (;;) {
    await sleep(500);
    const { builds } = (await (await fetch(`${app.baseUrl}/builds?limit=100`)).json()) as { builds: BuildJson[] };
    const ids = new Set(burst);
    if (builds.filter((build) => ids.has(build.build_id)).every(settled)) break;
  }
  const finished = await Promise.all(burst.map(get));
  const failed = finished.filter((build) => build.status !== "running");
  if (failed.length > 0) throw new Error(`${failed.length} burst builds did not reach running: ${failed[0].status}`);
  const drainMs = Math.max(...finished.map((build) => Date.parse(build.finished_at!))) - burstStart;

  const burstHosts = new Set(finished.map((build) => (build as BuildJson & { host?: string }).host));
  const sseLineDelayMs = options.sseLines ? await measureLogLineDelays(app, post) : undefined;

  const summary = (values: number[]) => ({
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: Math.max(...values),
    count: values.length,
  });
  return {
    instances: apps.length,
    postToFirstStageMs: summary(toFirstStage),
    createdToFirstStageMs: summary(createdToFirstStage),
    postAnswerMs: summary(postAnswer),
    burst: {
      builds: settings.burst,
      answerMs: summary(burstAnswers),
      drainMs,
      perBuildMs: round(drainMs / settings.burst, 1),
      hosts: burstHosts.size,
      hostNames: [...burstHosts],
    },
    sseLineDelayMs: sseLineDelayMs && summary(sseLineDelayMs),
  };
}

/** A log line's delay, from the stage's output to an SSE client: lines carry the time they were printed. */
async function measureLogLineDelays(app: Server, post: (modules: string[]) => Promise<BuildJson>): Promise<number[]> {
  const { build_id } = await post(["lines"]);
  const stream = await fetch(`${app.baseUrl}/builds/${build_id}/logs/stream?stage=install`);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  const lineDelays: number[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const receivedAt = Date.now();
    buffer += value;
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    for (const line of lines) {
      const match = /^data: t=(\d+) line \d+$/.exec(line);
      if (match) lineDelays.push(receivedAt - Number(match[1]));
    }
    if (/^event: end$/m.test(value)) break;
  }
  await reader.cancel().catch(() => undefined);
  return lineDelays;
}

function machine() {
  return {
    cores: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((value) => round(value, 2)),
  };
}

type BuildsResult = Awaited<ReturnType<typeof measureBuilds>>;

function printTable(
  reads: ReadRow[] | undefined,
  builds: BuildsResult | undefined,
  buildsOnPostgresql: BuildsResult | undefined,
) {
  const lines: string[] = [];
  if (reads) {
    lines.push(
      "| server | req/s | p50 ms | p99 ms | × floor (req/s) | × floor (p99) | × limit (req/s) | server CPU µs/request | × floor (CPU) | full GCs / 10k requests |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const row of reads) {
      lines.push(
        `| ${row.name} | ${row.requestsPerSecond.toLocaleString("en")} | ${row.latencyP50Ms} | ${row.latencyP99Ms} | ${row.ratioToFloor ?? ""} | ${row.p99RatioToFloor ?? ""} | ${row.ratioToLimit} | ${row.cpuMicrosPerRequest ?? ""} | ${row.cpuRatioToFloor ?? ""} | ${row.fullGcsPer10kRequests ?? ""} |`,
      );
    }
    const againstSmallFloor = (prefix: string) => reads.find((row) => row.name.startsWith(prefix))?.ratioToSmallFloor;
    lines.push(
      "",
      "The 10-year history's rows (app and nginx) are compared with the floor and the limit of a body of its size" +
        `; against the small floor the app's is at ${againstSmallFloor("app /rates/history (10 years)")}× in req/s.` +
        ` /rates/{date} is compared with the floor of a route with a path parameter, itself at ${againstSmallFloor("Next.js route with a path parameter")}×` +
        ` the small floor; against the small floor /rates/{date} is at ${againstSmallFloor("app /rates/{date}")}×.`,
    );
    const onPostgresql = reads.filter((row) => row.ratioToSqlite !== undefined);
    if (onPostgresql.length > 0) {
      // The app's CPU column leaves out PostgreSQL's own processes: compare req/s, which pays for both.
      lines.push(
        "",
        "On PostgreSQL against SQLite, the same read in the same round (req/s): " +
          onPostgresql.map((row) => `${row.name.replace("app on PostgreSQL ", "")} ${row.ratioToSqlite}×`).join(", ") +
          ". The CPU column of the PostgreSQL rows counts the app's processes only, not the database server's.",
      );
    }
  }
  for (const [where, result] of [
    ["SQLite, one instance with 2 slots", builds],
    ["PostgreSQL, two builder instances with 1 slot each", buildsOnPostgresql],
  ] as const) {
    if (!result) continue;
    lines.push("", `| build service (${where}) | p50 ms | p99 ms | max ms |`, "|---|---:|---:|---:|");
    const row = (name: string, s: { p50: number; p99: number; max: number }) =>
      lines.push(`| ${name} | ${s.p50} | ${s.p99} | ${s.max} |`);
    row(
      `POST /builds to first stage, free slot (${result.postToFirstStageMs.count} builds)`,
      result.postToFirstStageMs,
    );
    row("created to first stage (server clock)", result.createdToFirstStageMs);
    row(`POST /builds answer, burst of ${result.burst.builds} at once`, result.burst.answerMs);
    if (result.sseLineDelayMs)
      row(`log line to SSE client (${result.sseLineDelayMs.count} lines)`, result.sseLineDelayMs);
    lines.push(
      `| queue drain, ${result.burst.builds} builds on 2 slots (${result.burst.hosts} host${result.burst.hosts === 1 ? "" : "s"} used) | ${result.burst.drainMs} ms total, ${result.burst.perBuildMs} ms a build | | |`,
    );
  }
  return lines.join("\n");
}

function gatewayTable(result: GatewayResult, { connections }: { connections: number }): string {
  const row = (name: string, r: LoadResult, added = "") =>
    `| ${name} | ${r.requestsPerSecond.toLocaleString("en")} | ${r.latencyP50Ms} | ${r.latencyP99Ms} | ${added} |`;
  return [
    `| a preview's small page, ${connections} connections | req/s | p50 ms | p99 ms | added over direct (p50 / p99 ms) |`,
    "|---|---:|---:|---:|---:|",
    row("direct, on its port", result.direct),
    row(
      "plain nginx proxy_pass (the engine's floor)",
      result.plainNginx,
      `${result.plainAddedLatencyP50Ms} / ${result.plainAddedLatencyP99Ms}`,
    ),
    row(
      "the gateway (auth_request, answer kept 1 s)",
      result.gateway,
      `${result.addedLatencyP50Ms} / ${result.addedLatencyP99Ms}`,
    ),
    row("a private preview, an admitted visitor's cookie (kept 1 s per cookie)", result.privateAdmitted),
    row("a private preview, X-Preview-Bypass (never kept: the app every request)", result.privateBypass),
    "",
    `The gateway against plain nginx, the same round: ${result.ratioToPlainNginx}x in req/s (median of ${result.rounds} rounds).`,
    `The gateway against the preview reached directly, the same round: ${result.ratioToDirect}x in req/s.`,
    `A private preview's admitted visitor against the public preview, the same round: ${result.privateRatioToPublic}x in req/s.`,
    `Wake on visit, from the first visit of a sleeping preview to its first byte: ${result.wakeToFirstByteMs.join(", ")} ms.`,
  ].join("\n");
}

async function main() {
  assertBuilt();
  buildBareNext();
  const started = new Date();
  const host = machine();
  const today = started.toISOString().slice(0, 10);
  const { dataDir, databaseFile } = makeDatabase();
  seedDailyRates(databaseFile, today);
  // Builds live outside the data folder (the stage user may enter them, never the data folder), in a folder
  // that user can enter.
  const buildsDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-builds-"));
  fs.chmodSync(buildsDir, 0o755);
  const { configFile, repository } = makeBuildsBench(buildsDir);
  const profileDir = process.env.BENCH_CPU_PROF;
  // Every instance of the app, SQLite's and PostgreSQL's, writes its own profile (named by its pid) there.
  const nodeArgs = [
    ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
    ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profileDir)}`] : []),
  ];
  const app = await startApp({
    databaseUrl: `file:${databaseFile}`,
    env: { BUILDS_CONFIG: configFile },
    nodeArgs,
    countGcs: true,
  });
  let nginx: NginxServer | undefined;
  let cluster: ThrowawayPostgresql | undefined;
  const postgresqlApps: Server[] = [];
  stopOnInterrupt.push(
    () => fs.rmSync(dataDir, { recursive: true, force: true }),
    () => fs.rmSync(buildsDir, { recursive: true, force: true }),
    () => cluster?.stop(),
    () => nginx?.stop(),
  );
  try {
    let reads: ReadRow[] | undefined;
    let builds: BuildsResult | undefined;
    let buildsOnPostgresql: BuildsResult | undefined;
    if (settings.postgresql && settings.only !== "gateway") {
      cluster = await startThrowawayPostgresql();
      execFileSync("psql", ["-X", "-q", "-c", 'CREATE DATABASE "bench"', cluster.url]);
      const databaseUrl = cluster.urlOf("bench");
      migrateDatabase({
        DATABASE_URL: databaseUrl,
        NEXTAUTH_SECRET: POSTGRESQL_SECRET,
        DATA_DIR: path.join(dataDir, "postgresql-migrate"),
      });
      await seedDailyRatesPostgresql(databaseUrl, today);
      // Two builder instances of one database, one slot each, each with its own builds_root, ports and uids.
      for (const name of ["postgresql-1", "postgresql-2"]) {
        const root = path.join(buildsDir, name);
        fs.mkdirSync(root, { mode: 0o755 });
        const builderConfig = makeBuildsBench(root, { slots: 1, repository }).configFile;
        const env = {
          NEXTAUTH_SECRET: POSTGRESQL_SECRET,
          DATA_DIR: path.join(dataDir, name),
          BUILDS_CONFIG: builderConfig,
        };
        postgresqlApps.push(await startApp({ databaseUrl, env, nodeArgs, countGcs: true }));
      }
    }
    const [postgresqlApp] = postgresqlApps;
    if (settings.only === undefined || settings.only === "reads") {
      nginx = await startNginx({ appPort: app.port, workers: "auto" });
      console.error(
        `reads: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured each`,
      );
      reads = await measureReads(app, nginx, today, databaseFile, postgresqlApp);
      await nginx.stop();
      nginx = undefined;
    }
    let gateway: GatewayResult | undefined;
    if (settings.only === undefined || settings.only === "gateway") {
      console.error("previews' gateway...");
      gateway = await measureGateway(settings);
    }
    if (settings.only !== "reads" && settings.only !== "gateway") {
      console.error("build service...");
      builds = await measureBuilds([app], { sseLines: true });
      if (postgresqlApps.length > 0) buildsOnPostgresql = await measureBuilds(postgresqlApps, { sseLines: false });
    }
    const table = [printTable(reads, builds, buildsOnPostgresql), gateway && gatewayTable(gateway, settings)]
      .filter(Boolean)
      .join("\n\n");
    console.log(
      `\nnpm run bench, ${started.toISOString()}, ${host.cores} cores (${host.cpuModel}), Node ${process.version}, ${SEEDED_DAYS} daily rates\n`,
    );
    console.log(table);
    const result = {
      time: started.toISOString(),
      machine: host,
      settings: { ...settings, seededDays: SEEDED_DAYS },
      reads,
      builds,
      buildsOnPostgresql,
      gateway,
      table,
    };
    // A partial run (BENCH_ONLY) is written apart: latest.json stays the last full run.
    const file = path.join(projectRoot, "bench", "results", `latest${settings.only ? `-${settings.only}` : ""}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\nwritten: ${path.relative(projectRoot, file)}`);
  } finally {
    await nginx?.stop();
    await app.stop();
    for (const instance of postgresqlApps) await instance.stop();
    cluster?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(buildsDir, { recursive: true, force: true });
  }
}

await main();

/**
 * `npm run bench:install-cache` (after `npm run build`, as root with Docker and docker-compose): what the install
 * cache (runtime.install_cache) saves a preview, with the compose driver and a real PostgreSQL 15 in each build.
 *
 * Each build is a Compose project of two services of one local image (Debian's postgresql-15 and busybox, built
 * with debootstrap when missing: about 90 s and 480 MB, no registry): `db`, the build's own PostgreSQL, and
 * `web`, which runs the install (psql against db) and then serves the preview (busybox httpd). The install loads a
 * schema like an Odoo install of a few modules: hundreds of tables with their indexes and a few hundred thousand
 * rows, then record-by-record statements, each its own transaction, as an ORM writes (`chatter`), for at least a
 * minute. `save` is `pg_dump -Fc` into CACHE_DIR, `restore` is `pg_restore` into the new build's database.
 *
 * Measured: a first build of the modules (a miss: database start, install, save) against a second build of the
 * same modules (a hit: database start, restore), each from created to running and each part; then the restore's
 * time at three database sizes (bulk rows only, no chatter, so that those installs are quick). Prints a table and
 * writes bench/results/latest-install-cache.json. BENCH_CHATTER (150000) sets the record-by-record statements of
 * the big install; BENCH_POSTGRES_ROOT a debootstrapped root to import instead of making one.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { assertBuilt, makeDatabase, migrateDatabase, projectRoot, startApp, stopEveryServer } from "./support/servers";

const IMAGE = "local/bench-postgres:15";
const CHATTER = Number(process.env.BENCH_CHATTER ?? 150_000);

/** The database sizes of the restore measurement: tables and rows, loaded in bulk. */
const SIZES = [
  { module: "size_small", tables: 100, rows: 100_000 },
  { module: "size_medium", tables: 300, rows: 300_000 },
  { module: "size_large", tables: 300, rows: 1_000_000 },
];

const ENTRY_SCRIPT = `#!/bin/sh
set -e
PGDATA=/var/lib/postgresql/data
mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  su postgres -s /bin/sh -c "/usr/lib/postgresql/15/bin/initdb -D $PGDATA -A trust -U postgres" >/dev/null
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all 0.0.0.0/0 trust" >> "$PGDATA/pg_hba.conf"
fi
exec su postgres -s /bin/sh -c "exec /usr/lib/postgresql/15/bin/postgres -D $PGDATA -k /tmp"
`;

/** The image of both services, made from Debian's packages when Docker does not have it yet. */
function ensureImage(): void {
  if (spawnSync("docker", ["image", "inspect", IMAGE], { stdio: "ignore" }).status === 0) return;
  let root = process.env.BENCH_POSTGRES_ROOT;
  if (!root) {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-pgroot-"));
    const sources = fs.readFileSync("/etc/apt/sources.list.d/debian.sources", "utf8");
    const mirror = /^URIs:\s*(\S+)/m.exec(sources)?.[1] ?? "http://deb.debian.org/debian";
    console.error(`making ${IMAGE} with debootstrap (about 90 s)...`);
    execFileSync("debootstrap", ["--variant=minbase", "--include=postgresql-15,busybox", "bookworm", root, mirror], {
      stdio: ["ignore", "ignore", "inherit"],
    });
  }
  fs.writeFileSync(path.join(root, "usr", "local", "bin", "pg-entry"), ENTRY_SCRIPT, { mode: 0o755 });
  execFileSync(
    "sh",
    ["-c", `tar -C "$1" -c . | docker import -c 'CMD ["/usr/local/bin/pg-entry"]' - "$2"`, "import", root, IMAGE],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}

/**
 * The install: the build's database, then per table a CREATE TABLE, two indexes and its rows in bulk, then
 * `chatter` single-row statements (each its own transaction, as an ORM's writes are).
 */
const INSTALL_SCRIPT = `set -e
db=$1; tables=$2; rows=$3; chatter=$4
export PGHOST=db PGUSER=postgres
createdb "$db"
psql -q -v ON_ERROR_STOP=1 -d "$db" -v tables="$tables" -v per="$((rows / tables))" <<'SQL'
SELECT format('CREATE TABLE t_%s (id serial PRIMARY KEY, name text NOT NULL, ref text, partner_id integer, state text, amount numeric(16,2), create_date timestamp, write_date timestamp);
CREATE INDEX ON t_%s (partner_id); CREATE INDEX ON t_%s (state);
INSERT INTO t_%s (name, ref, partner_id, state, amount, create_date, write_date)
  SELECT ''record '' || n, md5(n::text), n %% 997, (ARRAY[''draft'',''sale'',''done'',''cancel''])[1 + n %% 4], n * 1.5, now(), now()
  FROM generate_series(1, %s) AS n;', i, i, i, i, :per)
FROM generate_series(1, :tables) AS i
\\gexec
CREATE TABLE ir_model_data (id serial PRIMARY KEY, module text, name text, res_id integer, noupdate boolean);
SQL
if [ "$chatter" -gt 0 ]; then
  seq 1 "$chatter" | sed "s/.*/INSERT INTO ir_model_data (module, name, res_id, noupdate) VALUES ('shop', 'record_&', &, false);/" | psql -q -v ON_ERROR_STOP=1 -d "$db"
fi
psql -q -At -d "$db" -c "SELECT 'installed ' || count(*) || ' tables, ' || pg_size_pretty(pg_database_size(current_database())) FROM pg_tables WHERE schemaname = 'public'"
`;

function git(cwd: string, ...args: string[]) {
  execFileSync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", ...args], {
    cwd,
    stdio: "ignore",
  });
}

function makeRepository(repository: string): void {
  for (const name of ["shop", ...SIZES.map((size) => size.module)]) {
    fs.mkdirSync(path.join(repository, name), { recursive: true });
    fs.writeFileSync(path.join(repository, name, "__manifest__.py"), `{'name': '${name}', 'depends': []}\n`);
  }
  fs.mkdirSync(path.join(repository, "stages"));
  fs.writeFileSync(path.join(repository, "stages", "install.sh"), INSTALL_SCRIPT);
  git(repository, "init", "--quiet", "-b", "main");
  git(repository, "add", ".");
  git(repository, "commit", "--quiet", "-m", "bench");
}

const TEMPLATE = `services:
  db:
    image: ${IMAGE}
    init: true
    healthcheck:
      test: ["CMD-SHELL", "su postgres -s /bin/sh -c 'psql -h 127.0.0.1 -d postgres -c \\"SELECT 1\\"' >/dev/null"]
      interval: 1s
      timeout: 5s
      retries: 120
    volumes:
      - pgdata:/var/lib/postgresql/data
  web:
    image: ${IMAGE}
    init: true
    depends_on:
      db: { condition: service_healthy }
    command: ["sh", "-c", "mkdir -p /tmp/www && echo preview > /tmp/www/index.html && exec busybox httpd -f -p 8069 -h /tmp/www"]
    ports:
      - "\${PREVIEW_ADDRESS}:\${PORT}:8069"
    volumes:
      - \${SOURCES}:/mnt/sources:ro
volumes:
  pgdata: {}
`;

/** The install reads its sizes from the module it installs (the only request value a stage sees). */
const INSTALL_ARGS = `case "$2" in
  size_small) set -- "$1" 100 100000 0 ;; size_medium) set -- "$1" 300 300000 0 ;; size_large) set -- "$1" 300 1000000 0 ;;
  *) set -- "$1" 300 300000 ${CHATTER} ;;
esac
exec sh /mnt/sources/demo/stages/install.sh "$@"`;

function makeConfig(root: string, repository: string): string {
  const start = 43000 + Math.floor(Math.random() * 50) * 20;
  fs.writeFileSync(path.join(root, "compose.template.yaml"), TEMPLATE);
  const file = path.join(root, "builds.config.yaml");
  const yamlList = (items: string[]) => items.map((item) => `        - ${JSON.stringify(item)}`).join("\n");
  fs.writeFileSync(
    file,
    `
builds_root: ${path.join(root, "builds")}
max_concurrent_builds: 1
ttl: { default_seconds: 3600, min_seconds: 60, max_seconds: 86400, choices: [3600] }
ports: { start: ${start}, end: ${start + 19} }
stage_timeout_seconds: 1800
runtime:
  driver: compose
  healthcheck: { path: /, timeout_seconds: 120 }
  compose:
    template: compose.template.yaml
    database_service: db
    web_service: web
    stop_timeout_seconds: 2
    install:
      service: web
      command:
${yamlList(["sh", "-c", INSTALL_ARGS, "install", "${DATABASE}", "${MODULES}"])}
  install_cache:
    max_entries: 10
    save:
      service: web
      command:
${yamlList(["sh", "-c", 'PGHOST=db PGUSER=postgres pg_dump --format=custom --file="$CACHE_DIR/database.dump" "$1"', "save", "${DATABASE}"])}
    restore:
      service: web
      command:
${yamlList([
  "sh",
  "-c",
  'set -e; export PGHOST=db PGUSER=postgres; createdb "$1"; pg_restore --exit-on-error --jobs=2 --dbname="$1" "$CACHE_DIR/database.dump"',
  "restore",
  "${DATABASE}",
])}
repositories:
  - { alias: demo, url: ${repository}, default_ref: main, modules_path: ., module_manifest: __manifest__.py }
`,
  );
  return file;
}

interface Timed {
  build_id: string;
  cached: boolean;
  createdToRunningMs: number;
  stages: Record<string, number | null>;
}

async function runBuild(
  app: { baseUrl: string },
  authorization: Record<string, string>,
  modules: string[],
): Promise<Timed> {
  const created = await fetch(`${app.baseUrl}/builds`, {
    method: "POST",
    headers: { ...authorization, "Content-Type": "application/json" },
    body: JSON.stringify({ repository: "demo", ref: "main", modules }),
  });
  if (created.status !== 202) throw new Error(`POST /builds answered ${created.status}: ${await created.text()}`);
  const { build_id } = (await created.json()) as { build_id: string };
  for (;;) {
    const build = (await (await fetch(`${app.baseUrl}/builds/${build_id}`)).json()) as {
      status: string;
      created_at: string;
      finished_at: string | null;
      failure_message: string | null;
      stages: { name: string; duration_ms: number | null; cached: boolean }[];
    };
    if (build.status === "failed") throw new Error(`build ${build_id} failed: ${build.failure_message}`);
    if (build.status === "running") {
      const log = (await (await fetch(`${app.baseUrl}/builds/${build_id}/logs?stage=install`)).json()) as {
        content: string;
      };
      const said = log.content.split("\n").filter((line) => /installed |\[install cache\] (hit|miss|saved)/.test(line));
      console.error(
        `  ${modules.join(",")}: ${said.map((line) => line.replace(/^.*\[install cache\] /, "")).join("; ")}`,
      );
      return {
        build_id,
        cached: build.stages.find((stage) => stage.name === "install")?.cached ?? false,
        createdToRunningMs: Date.parse(build.finished_at!) - Date.parse(build.created_at),
        stages: Object.fromEntries(build.stages.map((stage) => [stage.name, stage.duration_ms])),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function destroy(app: { baseUrl: string }, authorization: Record<string, string>, buildId: string) {
  await fetch(`${app.baseUrl}/builds/${buildId}`, { method: "DELETE", headers: authorization });
}

/** The first account registered is the admin: GET /builds/cache is theirs. */
async function registerAdmin(app: { baseUrl: string }): Promise<Record<string, string>> {
  const email = "bench@example.com";
  const password = "correct horse battery";
  await fetch(`${app.baseUrl}/users/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const token = await fetch(`${app.baseUrl}/users/token`, {
    method: "POST",
    body: new URLSearchParams({ username: email, password }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  return { Authorization: `Bearer ${access_token}` };
}

const seconds = (ms: number | null | undefined) => (ms == null ? "-" : (ms / 1000).toFixed(1));

async function main(): Promise<void> {
  assertBuilt();
  ensureImage();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-install-cache-"));
  fs.chmodSync(root, 0o755);
  const repository = path.join(root, "repo");
  makeRepository(repository);
  const configFile = makeConfig(root, repository);
  const { dataDir, databaseFile } = makeDatabase();
  const databaseUrl = `file:${databaseFile}`;
  migrateDatabase({ DATABASE_URL: databaseUrl });
  const app = await startApp({ databaseUrl, env: { DATA_DIR: dataDir, BUILDS_CONFIG: configFile } });
  try {
    const authorization = await registerAdmin(app);
    console.error(`the install of 300 tables, 300,000 rows and ${CHATTER} single-row transactions...`);
    const first = await runBuild(app, authorization, ["shop"]);
    await destroy(app, authorization, first.build_id);
    console.error("the same modules again...");
    const second = await runBuild(app, authorization, ["shop"]);
    await destroy(app, authorization, second.build_id);
    const sizes = [];
    for (const size of process.env.BENCH_SIZES === "0" ? [] : SIZES) {
      console.error(`restore at ${size.tables} tables and ${size.rows} rows...`);
      const saved = await runBuild(app, authorization, [size.module]);
      await destroy(app, authorization, saved.build_id);
      const restored = await runBuild(app, authorization, [size.module]);
      await destroy(app, authorization, restored.build_id);
      sizes.push({
        ...size,
        installMs: saved.stages.install,
        restoreMs: restored.stages.install,
        cached: restored.cached,
      });
    }
    const entries = (await (await fetch(`${app.baseUrl}/builds/cache`, { headers: authorization })).json()) as {
      entries: { modules: string[]; size_bytes: number }[];
    };
    const dumpSize = (module: string) => entries.entries.find((entry) => entry.modules.join() === module)?.size_bytes;
    const parts = ["checkout", "render", "validate", "database", "install", "test", "start", "healthcheck"];
    const lines = [
      "| build | created → running | " + parts.join(" | ") + " |",
      "| --- | ---: | " + parts.map(() => "---:").join(" | ") + " |",
      ...[
        ["first (miss: install + save)", first],
        ["second (hit: restore)", second],
      ].map(
        ([label, build]) =>
          `| ${label} | ${seconds((build as Timed).createdToRunningMs)} s | ${parts.map((part) => seconds((build as Timed).stages[part])).join(" | ")} |`,
      ),
      "",
      `second / first, created → running: ${(second.createdToRunningMs / first.createdToRunningMs).toFixed(2)} (the goal: at most 0.33); the second's install stage cached: ${second.cached}`,
      "",
      "| database | dump (entry) | install | restore |",
      "| --- | ---: | ---: | ---: |",
      ...sizes.map(
        (size) =>
          `| ${size.tables} tables, ${size.rows.toLocaleString("en")} rows | ${((dumpSize(size.module) ?? 0) / 1e6).toFixed(1)} MB | ${seconds(size.installMs)} s | ${seconds(size.restoreMs)} s${size.cached ? "" : " (not cached!)"} |`,
      ),
    ];
    const table = lines.join("\n");
    console.log(`\nnpm run bench:install-cache, ${new Date().toISOString()}, ${os.cpus().length} cores\n\n${table}`);
    const file = path.join(projectRoot, "bench", "results", "latest-install-cache.json");
    fs.writeFileSync(
      file,
      `${JSON.stringify({ time: new Date().toISOString(), chatter: CHATTER, first, second, sizes, entries, table }, null, 2)}\n`,
    );
    console.log(`\nwritten: ${path.relative(projectRoot, file)}`);
  } finally {
    await app.stop();
    await stopEveryServer();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();

import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };

/**
 * The integration files that also run against PostgreSQL (project integration-postgresql): the multi-instance
 * proofs, and the API suites whose queries differ between the databases. The others pass there too (the
 * builds' cancel, logs and limits, the currencies were run there once) but would only repeat the SQLite run.
 */
const POSTGRESQL_SUITES = [
  "builds-repository",
  "db-statements",
  "builds-lifecycle",
  "builds-bundles",
  "builds-log-checks",
  "builds-validation",
  "security-ownership",
  "rates-latest",
  "rates-history",
  "rates-read-cache",
  "postgresql-instances",
  "postgresql-builder-hosts",
  "postgresql-cluster-jobs",
  "postgresql-cluster-builds",
  "postgresql-cluster-nginx",
  "postgresql-gateway",
  "gateway-access",
  "postgresql-cluster-auto-builds",
  "postgresql-instance-names",
  "postgresql-lost-host",
  "postgresql-restart-builds",
  "postgresql-restart-instances",
  "postgresql-restart-api",
  "postgresql-cluster-metrics",
  "postgresql-backups",
  "postgresql-cluster-rates-status",
  "health",
  "users",
  "security-display-names",
  "security-auth",
  "rates-fetch",
  "rates-import",
  "rates-export",
  "builds-actions",
];

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          // Some unit tests start child processes (git, tsx, process groups): seconds on a busy 2-core machine.
          testTimeout: 15_000,
          // One worker per core, and each runs its files one after another in the same process: a fresh process
          // for each file cost as much CPU as the tests themselves. The files put back what they change of the
          // process (its environment, timers, spies).
          maxWorkers: "100%",
          isolate: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          // PostgreSQL only: run by integration-postgresql below.
          exclude: [...configDefaults.exclude, "tests/integration/postgresql-*.test.ts"],
          environment: "node",
          // Each file starts its own server of the built app (tests/support/app-server.ts) on a fresh database.
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Three workers on two cores: a file spends much of its time waiting (for builds, Docker, a time to
          // live), and three keep the cores busy where two left a third of their time idle. `npm run
          // test:integration` runs this project and the next in one run: with the same maxWorkers they share
          // these workers, so neither waits for the other's last file.
          maxWorkers: 3,
          // A worker runs its files one after another in one process rather than one process a file. The shared
          // servers already count on it running one file at a time; the files that run lib/ in this process put
          // back its environment and state (tests/support/in-process-lib.ts).
          isolate: false,
        },
      },
      {
        resolve: { alias },
        // The repository-level and API suites again, with every test server on PostgreSQL: a throwaway cluster
        // started by the global setup (tests/support/global-setup.ts). The files that open SQLite directly or
        // test what only SQLite does (its file, its data folder) stay SQLite-only.
        test: {
          name: "integration-postgresql",
          include: POSTGRESQL_SUITES.map((name) => `tests/integration/${name}.test.ts`),
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: 3,
          isolate: false,
        },
      },
      {
        resolve: { alias },
        // `npm run soak` only: minutes of load on the built app, not part of npm test.
        test: {
          name: "soak",
          include: ["tests/soak/**/*.soak.ts"],
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          testTimeout: 600_000,
          hookTimeout: 120_000,
          maxWorkers: 1,
        },
      },
    ],
  },
});

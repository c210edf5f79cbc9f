import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { FullConfig } from "@playwright/test";
import { spawnBuiltServer, waitUntilAnswering } from "../../tools/built-server";
import { freePort, stopProcessGroup } from "../../tools/processes";

/** The password of every account the specs make (fixtures.ts PASSWORD): kept here, since setup imports no spec code. */
const E2E_PASSWORD = "correct horse battery";
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const execFileAsync = promisify(execFile);
const bin = (name: string) => path.join(projectRoot, "node_modules", ".bin", name);

/**
 * Starts everything the specs talk to and returns the teardown that stops it:
 * - the central bank stand-in (tests/support/bcv-server-cli.ts), driven by the specs through PUT /__control;
 * - a temp git repository with two modules and a build configuration whose stages are quick and chatty;
 * - the built app (`next start`) on a freshly migrated temp database, pointed at both;
 * - a second one on a copy of that database, with builds of its own, for the specs that count every build or hold
 *   every build slot (the "builds-2" project, playwright.config.ts), so that they need no turn with the others;
 * - a third one on another copy, with a stand-in of its own that always answers, for languages.spec.ts, whose tests
 *   read the latest rate while the rate specs change it and steer the stand-in;
 * - a fourth one on another copy, which stays without rates, for the fresh install's specs.
 * Their URLs reach the specs as environment variables (E2E_BASE_URL, E2E_BUILDS_BASE_URL, E2E_LANGUAGES_BASE_URL,
 * E2E_BLANK_BASE_URL, E2E_BCV_URL).
 */
export default async function globalSetup(_config: FullConfig) {
  if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    throw new Error("The app is not built: run `npm run build` first (npm test does).");
  }
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-"));
  // Stages run as uids of runtime.run_as_uids when the tests run as root: they must reach the builds and the preview server.
  fs.chmodSync(tempDir, 0o755);
  const children: ChildProcess[] = [];
  const teardown = async () => {
    await Promise.all(children.map((child) => stopProcessGroup(child)));
    await stopProcessesUnder(tempDir);
    fs.rmSync(tempDir, { recursive: true, force: true });
  };

  try {
    // The central bank stand-in starts while the database is migrated: each is mostly a process loading its modules.
    const bcv = await startBankStandIn();
    children.push(bcv.child);
    const languagesBcv = await startBankStandIn();
    children.push(languagesBcv.child);
    const bcvReady = Promise.all([bcv.ready, languagesBcv.ready]);

    // A data folder of its own (made 0700), apart from the builds that stages must enter.
    const databaseFile = path.join(tempDir, "data", "app.db");
    const databaseUrl = `file:${databaseFile}`;
    const buildsConfigs = makeBuildsFixture(tempDir);
    await execFileAsync(bin("tsx"), ["scripts/prepare-start.ts"], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`scripts/prepare-start.ts failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    });
    // The other servers' databases: copies of the migrated, empty one. The fresh install's (blank-install.spec.ts)
    // stays so, so that it needs no turn before every spec that stores a rate.
    const copyDatabase = (name: string) => {
      const file = path.join(tempDir, name, "data", "app.db");
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      for (const suffix of ["", "-wal"]) {
        if (fs.existsSync(databaseFile + suffix)) fs.copyFileSync(databaseFile + suffix, file + suffix);
      }
      return file;
    };
    const buildsDatabaseFile = copyDatabase("builds-app");
    const languagesDatabaseFile = copyDatabase("languages-app");
    const blankDatabaseFile = copyDatabase("blank");

    const appEnv = {
      BCV_URL: bcv.url,
      BCV_RETRIES: "0",
      BCV_TIMEOUT_MS: "3000",
      // Scheduled fetches are on by default; the specs decide when the rate is fetched.
      RATES_FETCH_INTERVAL_SECONDS: "0",
      // The webhook receivers of the specs (webhooks.spec.ts) listen on loopback, which is refused otherwise.
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      // The specs register and sign in some hundred times: at the default cost each hash costs 300 ms of CPU.
      PASSWORD_HASH_COST: "10",
    };
    const onOutput = (chunk: string) => {
      if (process.env.E2E_DEBUG) process.stderr.write(`[next] ${chunk}`);
    };
    // Idle connections kept as `npm start` keeps them (65 s, tools/built-server.ts): with Node's 5 s, a spec's
    // request on a loaded machine could reuse a connection the app was closing meanwhile (read ECONNRESET).
    const app = spawnBuiltServer({
      port: await freePort(),
      env: { ...appEnv, DATABASE_URL: databaseUrl, BUILDS_CONFIG: buildsConfigs.main },
      onOutput,
    });
    children.push(app.child);
    // Started beside the first: a server's start is mostly one thread, and the machine has two cores.
    const buildsApp = spawnBuiltServer({
      port: await freePort(),
      env: { ...appEnv, DATABASE_URL: `file:${buildsDatabaseFile}`, BUILDS_CONFIG: buildsConfigs.builds },
      onOutput,
    });
    children.push(buildsApp.child);
    await Promise.all([bcvReady, waitUntilAnswering(app, app.output), waitUntilAnswering(buildsApp, buildsApp.output)]);
    // Started once those answer, and not waited for: the specs that need them (blank-install.spec.ts,
    // languages.spec.ts) wait for them themselves, and the others need only the first two, whose start would
    // otherwise share the two cores with them.
    const languages = spawnBuiltServer({
      port: await freePort(),
      env: {
        ...appEnv,
        BCV_URL: languagesBcv.url,
        DATABASE_URL: `file:${languagesDatabaseFile}`,
        BUILDS_CONFIG: buildsConfigs.languages,
      },
      onOutput,
    });
    children.push(languages.child);
    const blank = spawnBuiltServer({
      port: await freePort(),
      env: { ...appEnv, DATABASE_URL: `file:${blankDatabaseFile}`, BUILDS_CONFIG: buildsConfigs.blank },
      onOutput,
    });
    children.push(blank.child);
    process.env.E2E_BCV_URL = bcv.url;
    process.env.E2E_LANGUAGES_BASE_URL = languages.baseUrl;
    process.env.E2E_BLANK_BASE_URL = blank.baseUrl;
    process.env.E2E_BLANK_DATABASE_FILE = blankDatabaseFile;
    // The first user registered is the admin: the one who imports workbooks (admins only) for the specs.
    const adminEmail = "e2e-admin@example.com";
    for (const baseUrl of [app.baseUrl, buildsApp.baseUrl]) {
      const registered = await fetch(`${baseUrl}/users/`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: adminEmail, password: E2E_PASSWORD }),
      });
      if (registered.status !== 201) throw new Error(`registering the e2e admin answered ${registered.status}`);
    }
    process.env.E2E_ADMIN_EMAIL = adminEmail;

    process.env.E2E_BASE_URL = app.baseUrl;
    process.env.E2E_BUILDS_BASE_URL = buildsApp.baseUrl;
    // For a spec that must take back what it stored (rates-stale.spec.ts): the app has no delete of rates.
    process.env.E2E_DATABASE_FILE = databaseFile;
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

/**
 * The build configuration and its repositories:
 * - `demo`, a git repository with modules alpha and beta, which build cleanly, and broken, slow, verbose and
 *   paced, which steer the stage commands: `slow` keeps install busy for five minutes (to cancel it, or to hold a
 *   build slot), `broken` fails the tests, `verbose` writes a log longer than the API's 100,000-byte tail,
 *   `paced` prints the test lines a second apart, so a spec can watch a log grow;
 * - `extras`, a second repository (module gamma) whose ref is locked to its default;
 * - `offline`, whose URL does not exist, so it is never ready.
 * The stages print a few coloured lines; `start` serves a page naming the build's modules on $PORT. Only a build
 * with `paced` waits between its test lines: the specs that just need a running build do not wait six seconds
 * for each one, one spec after another in the builds project.
 */
const E2E_WEBHOOK_SECRET = "e2e-webhook-secret";

function makeBuildsFixture(tempDir: string): Record<"main" | "builds" | "languages" | "blank", string> {
  const demo = makeRepository(path.join(tempDir, "demo-repo"), ["alpha", "beta", "broken", "slow", "verbose", "paced"]);
  // The specs push to it (auto-builds.spec.ts) and sign webhooks with the secret.
  process.env.E2E_DEMO_REPO = demo;
  process.env.E2E_WEBHOOK_SECRET = E2E_WEBHOOK_SECRET;
  const extras = makeRepository(path.join(tempDir, "extras-repo"), ["gamma"]);
  const previewServer = path.join(tempDir, "preview-server.cjs");
  fs.writeFileSync(
    previewServer,
    `const http = require("node:http");
const modules = (process.env.MODULES || "").split(",").filter(Boolean);
http
  .createServer((request, response) => {
    // One line per request, as an application server logs them: the preview's own output in its start log.
    console.log(request.method + " " + request.url);
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>Preview " + process.env.BUILD_ID + "</title><h1>Preview of build " +
      process.env.BUILD_ID + "</h1><ul>" + modules.map((m) => "<li>" + m + "</li>").join("") + "</ul>");
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
`,
  );

  // Ports and build uids of this run's own: two runs on one machine (people testing side by side) must never
  // lease one port, whose preview would answer for the other run's build, or one uid, whose destroy would end
  // the other's processes. Above the ephemeral ports and the integration suite's (tests/support/builds.ts).
  // Each server has a builds folder, ports and uids of its own, so that none takes another's builds for lost. Those
  // of languages.spec.ts and of the fresh install never build, but their background jobs look after a folder all
  // the same.
  const offset = Math.floor(Math.random() * 40) * 100;
  return {
    main: writeBuildsConfig(
      path.join(tempDir, "builds.config.yaml"),
      path.join(tempDir, "builds"),
      offset,
      offset + 49,
    ),
    builds: writeBuildsConfig(
      path.join(tempDir, "builds-app.config.yaml"),
      path.join(tempDir, "builds-app-builds"),
      offset + 50,
      offset + 79,
    ),
    languages: writeBuildsConfig(
      path.join(tempDir, "languages-app.config.yaml"),
      path.join(tempDir, "languages-app-builds"),
      offset + 80,
      offset + 89,
    ),
    blank: writeBuildsConfig(
      path.join(tempDir, "blank.config.yaml"),
      path.join(tempDir, "blank-builds"),
      offset + 90,
      offset + 99,
    ),
  };

  function writeBuildsConfig(config: string, buildsRoot: string, first: number, last: number): string {
    const ports = { start: 61000 + first, end: 61000 + last };
    const uids = { start: 1920000000 + first, end: 1920000000 + last };
    fs.writeFileSync(
      config,
      `builds_root: ${JSON.stringify(buildsRoot)}
max_concurrent_builds: 2
max_queued_builds: 10
ttl: { default_seconds: 3600, min_seconds: 60, max_seconds: 86400, choices: [600, 3600, 86400] }
ports: { start: ${ports.start}, end: ${ports.end} }
# Past the longest a spec lets a slow install run before it cancels it.
stage_timeout_seconds: 600
runtime:
  driver: process
  # Apart from the default range and from the other suites' (tests/support/builds.ts, fixtureUids).
  run_as_uids: { start: ${uids.start}, end: ${uids.end} }
  install: >-
    echo "installing $MODULES";
    echo "reading each module manifest and its dependencies, then copying the add-ons into the build path in order";
    case ",$MODULES," in *,slow,*) for i in $(seq 1 300); do echo "still installing $i"; sleep 1; done;; esac;
    case ",$MODULES," in *,verbose,*) seq -f "verbose line %06g ................................................" 1 3000;; esac;
    sleep 1; printf "\\033[32minstalled\\033[0m %s\\n" "$MODULES"
  test: >-
    case ",$MODULES," in *,broken,*) echo "1 test failed: broken" >&2; exit 3;; esac;
    case ",$MODULES," in *,paced,*) pause=1;; *) pause=0;; esac;
    for i in 1 2 3 4 5 6; do printf "\\033[36mtest %s\\033[0m <b>ok</b>\\n" "$i"; sleep $pause; done
  start: 'echo "serving on $PORT"; exec node ${JSON.stringify(previewServer)}'
  healthcheck: { path: "/", timeout_seconds: 30 }
repositories:
  - alias: demo
    url: ${JSON.stringify(demo)}
    default_ref: main
    allow_request_ref: true
    priority: 10
    modules_path: modules
    module_manifest: module.json
    # Automatic builds (tests/e2e/auto-builds.spec.ts): branches auto/* through a signed webhook.
    auto_build: { branches: ["auto/*"], modules: [alpha], ttl_seconds: 600 }
    webhook_secret: ${JSON.stringify(E2E_WEBHOOK_SECRET)}
  - alias: extras
    url: ${JSON.stringify(extras)}
    default_ref: main
    allow_request_ref: false
    priority: 20
    modules_path: modules
    module_manifest: module.json
  - alias: offline
    url: ${JSON.stringify(path.join(tempDir, "no-such-repo"))}
    default_ref: main
    priority: 30
`,
    );
    return config;
  }
}

/** A git repository on branch main with one module (a folder holding module.json) per name. */
function makeRepository(dir: string, modules: string[]): string {
  for (const name of modules) {
    fs.mkdirSync(path.join(dir, "modules", name), { recursive: true });
    fs.writeFileSync(path.join(dir, "modules", name, "module.json"), `${JSON.stringify({ name })}\n`);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", ...args], {
      cwd: dir,
      stdio: "ignore",
    });
  git("init", "--quiet", "--initial-branch=main");
  git("add", ".");
  git("commit", "--quiet", "-m", "Modules");
  return dir;
}

interface Started {
  child: ChildProcess;
  output: string[];
}

/** A central bank stand-in on a free port, publishing today's rate; `ready` settles once it answers. */
async function startBankStandIn(): Promise<Started & { url: string; ready: Promise<void> }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = startProcess(
    bin("tsx"),
    ["tests/support/bcv-server-cli.ts", "--port", String(port), "--value-dates", "today"],
    {},
  );
  const output = () => started.output.join("");
  return { ...started, url: `${baseUrl}/`, ready: waitUntilAnswering({ ...started, baseUrl }, output, "/__control") };
}

function startProcess(command: string, args: string[], env: Record<string, string>): Started {
  // Its own process group, so the teardown stops the process and everything it started.
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    output.push(String(chunk));
    // E2E_DEBUG=1 shows what the servers print, to see why a spec failed on the server side.
    if (process.env.E2E_DEBUG) process.stderr.write(`[${path.basename(command)}] ${chunk}`);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return { child, output };
}

/**
 * Builds run in their own process groups, outside the app's. A spec that failed halfway may leave a
 * preview running after the app stopped: stop every process whose working directory is in the temp folder.
 */
async function stopProcessesUnder(dir: string): Promise<void> {
  if (process.platform !== "linux") return;
  const pids = fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/cwd`).startsWith(dir + path.sep);
      } catch {
        return false;
      }
    })
    .map(Number);
  const signal = (name: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        /* already gone */
      }
    }
  };
  signal("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, pids.length ? 1_000 : 0));
  signal("SIGKILL");
}

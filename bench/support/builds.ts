import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * The build service's part of the benchmark: a git repository and a configuration whose stages take no time
 * (`true`, run by /bin/sh), except for builds of the module `lines`, whose install prints a timestamped line
 * every 20 ms, for the log-delivery measurement.
 */
const LINES_SCRIPT = `
const count = Number(process.env.LINE_COUNT ?? 150);
let sent = 0;
const timer = setInterval(() => {
  console.log("t=" + Date.now() + " line " + sent);
  if (++sent >= count) clearInterval(timer);
}, 20);
`;

function git(cwd: string, ...args: string[]) {
  execFileSync("git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", ...args], {
    cwd,
    stdio: "ignore",
  });
}

/**
 * A builds configuration under `root`, with `slots` concurrent builds. Several builder instances of one
 * database must agree on the repositories: pass the first one's `repository` to the others.
 */
export function makeBuildsBench(
  root: string,
  options: { slots?: number; repository?: string } = {},
): { configFile: string; repository: string } {
  const repository = options.repository ?? makeBenchRepository(path.join(root, "repo"));
  // Ports are only leased (no runtime is started), never bound: any free-looking range will do.
  const start = 40000 + Math.floor(Math.random() * 100) * 200;
  const configFile = path.join(root, "builds.config.yaml");
  fs.writeFileSync(
    configFile,
    `
builds_root: ${path.join(root, "builds")}
max_concurrent_builds: ${options.slots ?? 2}
max_queued_builds: 200
ttl: { default_seconds: 3600, min_seconds: 60, max_seconds: 86400, choices: [3600] }
ports: { start: ${start}, end: ${start + 199} }
reaper_interval_seconds: 30
runtime:
  driver: process
  # Apart from the default range and from the test suites' (a server started by hand, tests running meanwhile).
  run_as_uids: { start: ${1_930_000_000 + start}, end: ${1_930_000_000 + start + 199} }
  install: 'case ",$MODULES," in *,lines,*) node stages/lines.mjs ;; *) true ;; esac'
  test: "true"
repositories:
  - { alias: demo, url: ${repository}, default_ref: main, modules_path: addons, module_manifest: manifest.json }
`,
  );
  return { configFile, repository };
}

function makeBenchRepository(repository: string): string {
  for (const name of ["hello", "lines"]) {
    fs.mkdirSync(path.join(repository, "addons", name), { recursive: true });
    fs.writeFileSync(path.join(repository, "addons", name, "manifest.json"), JSON.stringify({ name }));
  }
  fs.mkdirSync(path.join(repository, "stages"));
  fs.writeFileSync(path.join(repository, "stages", "lines.mjs"), LINES_SCRIPT);
  git(repository, "init", "--quiet", "-b", "main");
  git(repository, "add", ".");
  git(repository, "commit", "--quiet", "-m", "bench");
  return repository;
}

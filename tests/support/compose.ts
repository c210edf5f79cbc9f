import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BuildsFixture } from "./builds";

/**
 * The Docker side of the compose driver's tests. They run against the real engine; no image registry is
 * reachable, so the one image they use is made here from the host's busybox (Debian's busybox-static) with
 * `docker import`. Where Docker is missing, the suites skip locally and fail in CI (CI=true).
 */
export const TEST_IMAGE = "local/busybox:1";

/** Why Docker cannot be used here, or null when it can. In CI, a reason is an error, not a skip. */
export function dockerUnavailableReason(): string | null {
  const info = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { encoding: "utf8", timeout: 15_000 });
  let reason: string | null = null;
  if (info.error) reason = `no docker command (${info.error.message})`;
  else if (info.status !== 0) reason = `the Docker daemon does not answer: ${info.stderr.trim().split("\n")[0]}`;
  else if (
    spawnSync("docker-compose", ["version"]).status !== 0 &&
    spawnSync("docker", ["compose", "version"]).status !== 0
  ) {
    reason = "neither docker-compose nor docker compose is installed";
  }
  if (reason && process.env.CI === "true") {
    throw new Error(
      `The compose driver's tests need Docker, and CI must run them: ${reason}. Start dockerd (see .ci/run).`,
    );
  }
  return reason;
}

/** Builds the test image from the host's busybox unless it exists (idempotent, no registry). */
export function ensureTestImage(): void {
  if (spawnSync("docker", ["image", "inspect", TEST_IMAGE], { stdio: "ignore" }).status === 0) return;
  const busybox = ["/bin/busybox", "/usr/bin/busybox"].find((file) => fs.existsSync(file));
  if (!busybox)
    throw new Error(
      "busybox is not installed (apt-get install busybox-static): the compose tests build their image from it",
    );
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "busybox-rootfs-"));
  try {
    fs.mkdirSync(path.join(root, "bin"));
    fs.mkdirSync(path.join(root, "tmp"), { mode: 0o1777 });
    fs.chmodSync(path.join(root, "tmp"), 0o1777);
    fs.copyFileSync(busybox, path.join(root, "bin", "busybox"));
    fs.chmodSync(path.join(root, "bin", "busybox"), 0o755);
    const applets = execFileSync(path.join(root, "bin", "busybox"), ["--list"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    for (const applet of applets) {
      if (applet !== "busybox") fs.symlinkSync("busybox", path.join(root, "bin", applet));
    }
    const tar = execFileSync("tar", ["-C", root, "-c", "."], { maxBuffer: 64 * 1024 * 1024 });
    execFileSync("docker", ["import", "-", TEST_IMAGE], { input: tar, stdio: ["pipe", "ignore", "inherit"] });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A two-service stack: `db` reports healthy once it has started, `web` serves a page naming the build and
 * its modules on the leased port. Install and test run in one-off `web` containers and follow the modules:
 * `bad_install` fails install, `slow_install` keeps it busy for a minute, `broken` fails the tests.
 */
export const TEST_TEMPLATE = `
services:
  db:
    image: ${TEST_IMAGE}
    init: true
    command: ["sh", "-c", "echo database of \${BUILD_ID} up; touch /tmp/ready; exec sleep 3600"]
    healthcheck: { test: ["CMD-SHELL", "test -f /tmp/ready"], interval: 1s, timeout: 2s, retries: 30 }
    volumes: ["dbdata:/data"]
  web:
    image: ${TEST_IMAGE}
    init: true
    command: ["sh", "-c", "mkdir -p /tmp/www && echo build \${BUILD_ID} modules \${MODULES} > /tmp/www/index.html && exec httpd -f -v -p 8080 -h /tmp/www"]
    ports: ["127.0.0.1:\${PORT}:8080"]
    volumes: ["\${SOURCES}:/mnt/sources:ro"]
    depends_on: { db: { condition: service_healthy } }
volumes:
  dbdata: {}
`;

export function composeFixtureConfig(
  fixture: Omit<BuildsFixture, "configFile">,
  options: { template?: string; ttl?: string; cli?: string; maxConcurrent?: number } = {},
): string {
  fs.writeFileSync(path.join(fixture.root, "compose.template.yaml"), options.template ?? TEST_TEMPLATE);
  return `
builds_root: ${fixture.buildsRoot}
max_concurrent_builds: ${options.maxConcurrent ?? 4}
ttl: ${options.ttl ?? "{ default_seconds: 3600, min_seconds: 1, max_seconds: 86400, choices: [3600] }"}
ports: { start: ${fixture.ports.start}, end: ${fixture.ports.end} }
stage_timeout_seconds: 60
reaper_interval_seconds: 0.5
runtime:
  driver: compose
  healthcheck: { path: "/", timeout_seconds: 30 }
  compose:
    template: compose.template.yaml
    cli: ${options.cli ?? "auto"}
    database_service: db
    web_service: web
    stop_timeout_seconds: 2
    install:
      service: web
      command: ["sh", "-c", "echo install \${MODULES} from \${CONTAINER_ADDONS_PATH}; ls /mnt/sources/demo/addons; case ,\${MODULES}, in *,bad_install,*) echo cannot install; exit 4;; *,slow_install,*) echo waiting; sleep 60;; esac"]
    test:
      service: web
      command: ["sh", "-c", "case ,\${MODULES}, in *,broken,*) echo the broken module fails its tests; exit 3;; esac; echo tests passed"]
repositories:
  - alias: demo
    url: ./repo
    default_ref: main
    modules_path: addons
    module_manifest: manifest.json
`;
}

export interface BuildResources {
  containers: string[];
  networks: string[];
  volumes: string[];
}

/** Every container, network and volume of a build's Compose project, found by Compose's project label. */
export function resourcesOfBuild(buildId: string): BuildResources {
  const list = (args: string[], name: string) =>
    execFileSync(
      "docker",
      [
        ...args,
        "--filter",
        "label=com.docker.compose.project",
        "--format",
        `{{.Label "com.docker.compose.project"}} {{${name}}}`,
      ],
      {
        encoding: "utf8",
      },
    )
      .split("\n")
      .filter((line) => line.split(" ")[0]?.endsWith(`-${buildId}`))
      .map((line) => line.split(" ")[1]);
  return {
    containers: list(["ps", "-a"], ".Names"),
    networks: list(["network", "ls"], ".Name"),
    volumes: list(["volume", "ls"], ".Name"),
  };
}

export const NOTHING_LEFT: BuildResources = { containers: [], networks: [], volumes: [] };

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { type BuildsApp, fixtureUids, makeBuildsFixture, startBuildsApp, tearDownBuilds } from "../support/builds";

/**
 * A newcomer's first preview of a repository of their own (docs/builds.md): the shipped builds.config.yaml with
 * its repository's url and modules_path changed, nothing else of what builds run. The repository holds two
 * module.json modules and no stage scripts: the shipped commands must find the demo's from the application's
 * folder, not from the checkout.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const shipped = parseYaml(fs.readFileSync(path.join(projectRoot, "builds.config.yaml"), "utf8"));

function git(cwd: string, ...args: string[]) {
  execFileSync("git", ["-c", "user.name=Shop", "-c", "user.email=shop@example.com", ...args], { cwd });
}

/** A repository of someone else's: modules under addons/, and nothing of this application's. */
function makeOwnRepository(folder: string) {
  const modules = {
    greeting: { name: "Greeting", version: "2.1.0", summary: "Says hello to the shop's customers." },
    invoicing: { name: "Invoicing", version: "0.3.0", summary: "Invoices in bolivars.", depends: ["greeting"] },
  };
  for (const [name, manifest] of Object.entries(modules)) {
    fs.mkdirSync(path.join(folder, "addons", name), { recursive: true });
    fs.writeFileSync(path.join(folder, "addons", name, "module.json"), JSON.stringify(manifest));
  }
  fs.writeFileSync(path.join(folder, "README.md"), "Our shop's modules.\n");
  git(folder, "init", "--quiet", "-b", "main");
  git(folder, "add", ".");
  git(folder, "commit", "--quiet", "-m", "Our modules");
}

let builds: BuildsApp;
let ownRepository: string;
beforeAll(async () => {
  const fixture = makeBuildsFixture((partial) => {
    ownRepository = path.join(partial.root, "our-addons");
    const [demo] = shipped.repositories;
    return stringifyYaml({
      ...shipped,
      // What a test server needs of its own beside others; the runtime (driver and commands) stays the shipped one.
      builds_root: partial.buildsRoot,
      ports: partial.ports,
      reaper_interval_seconds: 0.5,
      runtime: { ...shipped.runtime, run_as_uids: fixtureUids(partial.ports) },
      // The two keys a newcomer changes.
      repositories: [{ ...demo, url: ownRepository, modules_path: "addons" }],
    });
  });
  fs.mkdirSync(ownRepository);
  makeOwnRepository(ownRepository);
  builds = await startBuildsApp(fixture);
});
afterAll(() => tearDownBuilds(builds));

describe("the shipped stage commands on a repository of one's own", () => {
  it("keep the shipped runtime: the demo's scripts, found through APP_DIR", () => {
    expect(shipped.runtime.install).toBe('node "$APP_DIR/examples/runtime/install.mjs"');
    expect(fs.readdirSync(ownRepository).sort()).toEqual([".git", "README.md", "addons"]);
  });

  it("install, test and serve its modules: the preview lists them", async () => {
    const response = await builds.post({
      repositories: [{ repository: "demo", ref: "main" }],
      modules: ["invoicing", "greeting"],
    });
    expect(response.status).toBe(202);
    const { build_id: buildId } = (await response.json()) as { build_id: string };
    const running = await builds.waitForStatus(buildId, ["running", "failed"], 90_000);
    const log = (await (await builds.get(`/builds/${buildId}/logs`)).json()) as { content: string };
    expect(running.status, log.content).toBe("running");
    expect(log.content).toContain("installing invoicing 0.3.0: Invoices in bolivars.");
    expect(log.content).toContain("ok   invoicing depends on greeting");
    expect(log.content).toContain("all 2 module(s) passed");

    const page = await (await fetch(running.preview_url as string)).text();
    expect(page).toContain(`<h1>Build ${buildId}</h1>`);
    expect(page).toContain("<strong>greeting</strong> 2.1.0: Says hello to the shop&#39;s customers.");
    expect(page).toContain("<strong>invoicing</strong> 0.3.0: Invoices in bolivars.");
  }, 120_000);

  it("refuses a module its modules_path does not hold, before anything runs", async () => {
    const response = await builds.post({ repositories: [{ repository: "demo", ref: "main" }], modules: ["hello"] });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("hello");
  });
});

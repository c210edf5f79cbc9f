import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildJson, type BuildsApp, makeBuildsFixture, startBuildsApp, tearDownBuilds } from "../support/builds";
import {
  composeFixtureConfig,
  dockerUnavailableReason,
  ensureTestImage,
  NOTHING_LEFT,
  resourcesOfBuild,
} from "../support/compose";

// Sleep and wake with the compose driver against the real Docker engine (a busy shared machine can
// take minutes to bring a stack up): sleep is `compose stop`,
// so the containers stop and the project's volumes stay; wake is the start stage again, then the healthcheck.
const unavailable = dockerUnavailableReason();
if (unavailable) console.warn(`skipping the compose sleep tests: ${unavailable}`);

let builds: BuildsApp;
beforeAll(async () => {
  if (unavailable) return;
  ensureTestImage();
  builds = await startBuildsApp(makeBuildsFixture((fixture) => composeFixtureConfig(fixture)));
});
afterAll(async () => {
  if (!unavailable) await tearDownBuilds(builds);
});

const act = (buildId: string, action: "sleep" | "wake") =>
  builds.app.fetch(`/builds/${buildId}/${action}`, { method: "POST", headers: builds.authorization });

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3_000) })).ok;
  } catch {
    return false;
  }
}

/** Runs a shell command in the build's running `db` container (its data lives in the dbdata volume). */
function inDatabase(buildId: string, script: string): string {
  const [container] = resourcesOfBuild(buildId).containers.filter((name) => /[-_]db[-_]\d+$/.test(name));
  return execFileSync("docker", ["exec", container, "sh", "-c", script], { encoding: "utf8" }).trim();
}

const runningContainers = (buildId: string) =>
  execFileSync(
    "docker",
    ["ps", "--filter", "label=com.docker.compose.project", "--format", '{{.Label "com.docker.compose.project"}}'],
    { encoding: "utf8" },
  )
    .split("\n")
    .filter((project) => project.endsWith(`-${buildId}`)).length;

describe.skipIf(unavailable)("POST /builds/{build_id}/sleep and /wake (compose driver)", { timeout: 300_000 }, () => {
  it("sleep stops the stack and keeps it; wake starts it again, its volume's data intact", async () => {
    const posted = await builds.post({ repositories: [{ repository: "demo" }], modules: ["base_mod"] });
    expect(posted.status).toBe(202);
    const build = await builds.waitForStatus(
      ((await posted.json()) as BuildJson).build_id,
      ["running", "failed"],
      180_000,
    );
    expect(build.status).toBe("running");
    expect(await answers(build.preview_url as string)).toBe(true);
    inDatabase(build.build_id, "echo kept-across-sleep > /data/marker");

    const slept = await act(build.build_id, "sleep");
    expect(slept.status).toBe(200);
    expect(await slept.json()).toMatchObject({ status: "sleeping", expires_at: build.expires_at });
    expect(await answers(build.preview_url as string)).toBe(false);
    // Stopped, not removed: the containers and the volume are still there, none of them running.
    expect(runningContainers(build.build_id)).toBe(0);
    const kept = resourcesOfBuild(build.build_id);
    expect(kept.containers.length).toBeGreaterThanOrEqual(2);
    expect(kept.volumes.length).toBe(1);

    const woken = await act(build.build_id, "wake");
    expect(woken.status).toBe(200);
    expect(await woken.json()).toMatchObject({
      status: "running",
      preview_url: build.preview_url,
      expires_at: build.expires_at,
    });
    expect(await answers(build.preview_url as string)).toBe(true);
    expect(inDatabase(build.build_id, "cat /data/marker")).toBe("kept-across-sleep");

    // A sleeping build is destroyed like any other: nothing of it is left.
    expect((await act(build.build_id, "sleep")).status).toBe(200);
    expect(
      (await builds.app.fetch(`/builds/${build.build_id}`, { method: "DELETE", headers: builds.authorization })).status,
    ).toBe(200);
    expect(resourcesOfBuild(build.build_id)).toEqual(NOTHING_LEFT);
  });
});

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AppServer, startAppServer } from "../support/app-server";
import { type BcvServer, startBcvServer } from "../support/bcv-server";
import {
  type BuildJson,
  type BuildsApp,
  type BuildsFixture,
  connectBuildsApp,
  fixtureConfig,
  makeBuildsFixture,
  tearDownBuilds,
} from "../support/builds";
import { registerAndGetToken, requestToken } from "../support/users";
import { Q4_2025, readWorkbook } from "../support/workbooks";

// A full disk is answered with a problem, never 500, and a wrong password stays refused (the throttle, which must
// write, holds). The database lives on a real, tiny tmpfs that is then filled.
// Mounting needs root (CI runs as root); elsewhere the file is skipped and says why.

function tryMountTmpfs(mode = "0700"): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disk-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=16m,mode=${mode}`, "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return null;
  }
}

/** Fills every remaining byte of the file system holding `filler`: writes until it says ENOSPC. */
function fillDisk(filler: string) {
  const fd = fs.openSync(filler, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  }
  try {
    for (;;) fs.writeSync(fd, chunk.subarray(0, 512));
  } catch {
    /* the last blocks are taken too */
  } finally {
    fs.closeSync(fd);
  }
}

/** Registers new users until one answers 503: from then on every write needs a page the disk does not have. */
async function registerUntilRefused(app: AppServer): Promise<Response> {
  let response: Response | undefined;
  for (let attempt = 0; attempt < 40; attempt++) {
    response = await app.fetch("/users/", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: `full-${crypto.randomUUID()}@example.com`, password: "correct horse battery" }),
    });
    expect(response.status).not.toBe(500);
    if (response.status === 503) break;
  }
  return response!;
}

const mountPoint = tryMountTmpfs();

describe.skipIf(mountPoint === null)("a full disk (database on a filled 16 MB tmpfs; needs root to mount)", () => {
  let app: AppServer;
  let user: Awaited<ReturnType<typeof registerAndGetToken>>;
  const filler = path.join(mountPoint ?? "", "filler");

  beforeAll(async () => {
    const databaseFile = path.join(mountPoint!, "app.db");
    fs.copyFileSync(inject("templateDatabase"), databaseFile);
    app = await startAppServer({ DATABASE_URL: `file:${databaseFile}` });
    user = await registerAndGetToken(app);
    fillDisk(filler);
  });

  afterAll(async () => {
    await app?.stop();
    if (mountPoint) {
      execFileSync("umount", [mountPoint]);
      fs.rmdirSync(mountPoint);
    }
  });

  it("a write answers 503 with a clear detail, never 500", async () => {
    // Registrations write a row each: sooner or later one needs a page the disk no longer has.
    const response = await registerUntilRefused(app);
    expect(response!.status).toBe(503);
    expect(response!.headers.get("content-type")).toBe("application/problem+json");
    expect(response!.headers.get("retry-after")).toBeTruthy();
    expect((await response!.json()).detail).toMatch(/disk is full/);
  });

  it("sign-in attempts cannot be recorded, so no password is checked: 503 for wrong and right alike", async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 15; attempt++)
      statuses.push((await requestToken(app, user.email, `wrong ${attempt}`)).status);
    expect(statuses.filter((status) => status === 500)).toEqual([]);
    // Nothing answered "wrong password" without the attempt being counted.
    expect(statuses.every((status) => status === 503)).toBe(true);
    expect((await requestToken(app, user.email, user.password)).status).toBe(503);
    // Reads still work, and so does a token minted before.
    expect((await app.fetch("/users/me", { headers: user.authorization })).status).toBe(200);
  });

  it("once space is freed, sign-in works again and the throttle still counts", async () => {
    fs.rmSync(filler);
    expect((await requestToken(app, user.email, user.password)).status).toBe(200);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt++)
      statuses.push((await requestToken(app, user.email, `wrong ${attempt}`)).status);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

// Once the disk has been full, later Prisma transactions (register, POST /rates/, import) must still complete, and
// a build whose bookkeeping the full disk refused must not stay `installing` with nothing working on it. Here
// builds and data share the disk, as they do by default, so a stage could fill it too.
const sharedMount = tryMountTmpfs("0755");

describe.skipIf(sharedMount === null)(
  "after a full disk is freed (database and builds on one 16 MB tmpfs; needs root)",
  () => {
    let bcv: BcvServer;
    let fixture: BuildsFixture;
    let builds: BuildsApp;
    let caught: BuildJson;
    const filler = path.join(sharedMount ?? "", "filler");
    // The stage waits for this file (outside the full disk) and then ends without a word: its only trace is the
    // executor's write of its result, which the full disk refuses.
    const release = (name: string) => path.join(fixture.root, `release-${name}`);

    beforeAll(async () => {
      bcv = await startBcvServer();
      fixture = makeBuildsFixture((partial) =>
        fixtureConfig({ ...partial, buildsRoot: path.join(sharedMount!, "builds") }).replace(
          "install: node stages/install.mjs",
          `install: "until [ -e ${partial.root}/release-$MODULES ]; do sleep 0.1; done"`,
        ),
      );
      const databaseFile = path.join(sharedMount!, "data", "app.db");
      fs.mkdirSync(path.dirname(databaseFile), { mode: 0o700 });
      fs.copyFileSync(inject("templateDatabase"), databaseFile);
      const app = await startAppServer({
        DATABASE_URL: `file:${databaseFile}`,
        BUILDS_CONFIG: fixture.configFile,
        BCV_URL: bcv.url,
        BCV_RETRIES: "0",
      });
      builds = connectBuildsApp(app, fixture, (await registerAndGetToken(app)).authorization);
    });

    afterAll(async () => {
      for (const name of ["base_mod", "extra_mod"]) if (fixture) fs.writeFileSync(release(name), "");
      fs.rmSync(filler, { force: true });
      await tearDownBuilds(builds);
      await bcv?.stop();
      if (sharedMount) {
        execFileSync("umount", [sharedMount]);
        fs.rmdirSync(sharedMount);
      }
    });

    it("a build whose progress could not be recorded while the disk was full ends failed, saying why", async () => {
      const created = await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] });
      expect(created.status).toBe(202);
      const { build_id } = (await created.json()) as BuildJson;
      await builds.waitForStatus(build_id, ["installing"]);
      fillDisk(filler);
      expect((await registerUntilRefused(builds.app)).status).toBe(503);
      fs.writeFileSync(release("base_mod"), "");
      // The install ends; recording its result fails, and so does every try while the disk stays full.
      const deadline = Date.now() + 30_000;
      while (
        !builds.app.output().includes(`could not record the end of build ${build_id} yet`) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await (await builds.get(`/builds/${build_id}`)).json()).status).toBe("installing");
      fs.rmSync(filler);
      caught = await builds.waitForStatus(build_id, ["failed", "testing", "starting", "running"]);
      expect(caught).toMatchObject({ status: "failed", failure_stage: "checkout" });
      expect(caught.failure_message).toMatch(/could not record the build's progress: the server's disk was full/);
      expect(caught.stages.filter((stage) => stage.status === "running" || stage.status === "pending")).toEqual([]);
    }, 120_000);

    it("once space is freed, registration, POST /rates/ and an import answer at once, without a restart", async () => {
      const user = await registerAndGetToken(builds.app);
      expect((await builds.app.fetch("/users/me", { headers: user.authorization })).status).toBe(200);
      const fetched = await builds.app.fetch("/rates/", { method: "POST", headers: builds.authorization });
      expect(fetched.status).toBe(201);
      const form = new FormData();
      form.append("file", new Blob([readWorkbook(Q4_2025) as Uint8Array<ArrayBuffer>]), "2_1_2d25_smc.xls");
      const imported = await builds.app.fetch("/rates/import", {
        method: "POST",
        headers: builds.authorization,
        body: form,
      });
      expect(imported.status).toBe(200);
    });

    it("a new build runs, and one in progress can be canceled", async () => {
      const toCancel = (await (
        await builds.post({ repository: "demo", ref: "main", modules: ["extra_mod"] })
      ).json()) as BuildJson;
      await builds.waitForStatus(toCancel.build_id, ["installing"]);
      const canceled = await builds.app.fetch(`/builds/${toCancel.build_id}/cancel`, {
        method: "POST",
        headers: builds.authorization,
      });
      expect(canceled.status).toBe(200);
      expect((await canceled.json()).status).toBe("canceled");
      fs.writeFileSync(release("base_mod"), "");
      const next = (await (
        await builds.post({ repository: "demo", ref: "main", modules: ["base_mod"] })
      ).json()) as BuildJson;
      expect((await builds.waitForStatus(next.build_id, ["running", "failed"], 60_000)).status).toBe("running");
    }, 120_000);
  },
);

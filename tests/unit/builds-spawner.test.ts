import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnDetached } from "@/lib/builds/runtime/spawner";
import { processWide } from "@/lib/server/process-wide";

/** The builds' process starter, with real processes: a helper Node.js started once, children in their own groups. */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "builds-spawner-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const helperPid = () =>
  processWide<{ buildsSpawner?: { helper: { pid?: number } } }>("buildsSpawner", () => ({})).buildsSpawner?.helper.pid;

describe("spawnDetached", () => {
  it("starts a command in its own process group, its output in the log, and reports its exit", async () => {
    const logPath = path.join(dir, "ok.log");
    const started = await spawnDetached({
      file: "/bin/sh",
      args: ["-c", "echo out; echo err >&2; exit 3"],
      cwd: dir,
      env,
      logPath,
    });
    expect(started.pid).toBeGreaterThan(0);
    expect(await started.exited).toEqual({ code: 3, signal: null });
    expect(fs.readFileSync(logPath, "utf8")).toBe("out\nerr\n");
    // Started by the helper, not forked from this process.
    expect(helperPid()).toBeGreaterThan(0);
    expect(helperPid()).not.toBe(process.pid);
  });

  it("reports a command that cannot start, with the reason", async () => {
    const started = await spawnDetached({
      file: path.join(dir, "no-such-program"),
      args: [],
      cwd: dir,
      env,
      logPath: path.join(dir, "missing.log"),
    });
    expect(started.pid).toBeUndefined();
    expect(started.error).toMatch(/ENOENT/);
    expect(await started.exited).toEqual({ code: 127, signal: null });
  });

  it("reports the running children as ended when the helper dies, and starts a new helper for the next", async () => {
    const logPath = path.join(dir, "long.log");
    const long = await spawnDetached({ file: "/bin/sh", args: ["-c", "sleep 30"], cwd: dir, env, logPath });
    const first = helperPid()!;
    process.kill(first, "SIGKILL");
    expect(await long.exited).toEqual({ code: null, signal: null });
    // The child lives on in its group (the caller stops it), as it would have outlived a server.
    expect(() => process.kill(-long.pid!, 0)).not.toThrow();
    process.kill(-long.pid!, "SIGKILL");

    const next = await spawnDetached({ file: "/bin/sh", args: ["-c", "exit 0"], cwd: dir, env, logPath });
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect(helperPid()).not.toBe(first);
  });
});

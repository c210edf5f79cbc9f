import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import {
  encodeProcessHandle,
  isBuildProcessGroupAlive,
  parseProcessHandle,
  processStartTime,
  stopBuildProcessGroup,
} from "@/lib/builds/runtime/process-handles";

// Real processes in their own groups; each test kills what it started.
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      /* gone */
    }
  }
});

function spawnGroup(env: Record<string, string> = {}): ChildProcess {
  const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore", env: { ...process.env, ...env } });
  started.push(child);
  return child;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("process handles of builds (a recorded process group id is not trusted alone)", () => {
  it("records the group leader's start time, field 22 of /proc/<pid>/stat", () => {
    const child = spawnGroup();
    const handle = parseProcessHandle(encodeProcessHandle(child.pid!));
    expect(handle).toEqual({ pgid: child.pid, start: processStartTime(child.pid!) });
    expect(handle!.start).toMatch(/^\d+$/);
  });

  it("sees the group alive while its leader has the recorded start time", () => {
    const child = spawnGroup();
    expect(isBuildProcessGroupAlive(encodeProcessHandle(child.pid!), "0123456789abcdef")).toBe(true);
  });

  it("does not count, nor stop, a process that now has the recorded id but started at another time", async () => {
    // The id is reused: the handle names this pid, but its start time is not the one recorded.
    const stranger = spawnGroup();
    const reused = JSON.stringify({ pgid: stranger.pid, start: String(Number(processStartTime(stranger.pid!)) - 1) });
    expect(isBuildProcessGroupAlive(reused, "0123456789abcdef")).toBe(false);
    await stopBuildProcessGroup(reused, "0123456789abcdef", 100);
    expect(alive(stranger.pid!)).toBe(true);
  });

  it("accepts a handle without a start time (recorded before there were any) only for a process naming the build", async () => {
    const ours = spawnGroup({ BUILD_ID: "0123456789abcdef" });
    // Listened for before the stop: the exit may be reported while the stop is still waiting.
    const oursExited = new Promise((resolve) => ours.once("exit", resolve));
    const stranger = spawnGroup({ BUILD_ID: "fedcba9876543210" });
    expect(isBuildProcessGroupAlive(JSON.stringify({ pgid: ours.pid }), "0123456789abcdef")).toBe(true);
    expect(isBuildProcessGroupAlive(JSON.stringify({ pgid: stranger.pid }), "0123456789abcdef")).toBe(false);
    await stopBuildProcessGroup(JSON.stringify({ pgid: stranger.pid }), "0123456789abcdef", 100);
    expect(alive(stranger.pid!)).toBe(true);
    await stopBuildProcessGroup(JSON.stringify({ pgid: ours.pid }), "0123456789abcdef", 100);
    await oursExited;
    expect(ours.signalCode).toBe("SIGTERM");
  });

  it("stops the build's own group", async () => {
    const child = spawnGroup();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await stopBuildProcessGroup(encodeProcessHandle(child.pid!), "0123456789abcdef", 100);
    await exited;
    expect(isBuildProcessGroupAlive(encodeProcessHandle(child.pid!), "0123456789abcdef")).toBe(false);
  });

  it("rejects handles that are not process handles", () => {
    for (const text of [null, "", "12", "{}", '{"pgid":1}', '{"pgid":"12"}', '{"project":"x"}']) {
      expect(parseProcessHandle(text)).toBeNull();
      expect(isBuildProcessGroupAlive(text, "0123456789abcdef")).toBe(false);
    }
  });
});

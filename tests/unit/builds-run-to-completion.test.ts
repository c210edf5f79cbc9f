import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runToCompletion } from "@/lib/builds/runtime/processes";

/** A stage's process under the log writer, as the executor runs it, with real processes. */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-to-completion-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("runToCompletion", () => {
  it("stops a stage whose cancel came while it was being started and recorded", { timeout: 25_000 }, async () => {
    // The executor records the stage's process (onStarted) before it listens for a cancel: a cancel as soon as
    // the stage shows as started lands there. The stage here would otherwise run for 30 s, past the timeout.
    const controller = new AbortController();
    const outcome = await runToCompletion(
      { file: "sleep", args: ["30"], cwd: dir, env, logPath: path.join(dir, "stage.log"), mode: "exit" },
      { signal: controller.signal, timeoutMs: 120_000, onStarted: async () => controller.abort() },
    );
    expect(outcome).toEqual({ kind: "aborted" });
  });

  it("runs a stage that nobody stops to its exit, with its code", async () => {
    const outcome = await runToCompletion(
      {
        file: "/bin/sh",
        args: ["-c", "echo done; exit 4"],
        cwd: dir,
        env,
        logPath: path.join(dir, "exit.log"),
        mode: "exit",
      },
      { signal: new AbortController().signal, timeoutMs: 60_000 },
    );
    expect(outcome).toMatchObject({ kind: "exited", code: 4 });
    expect(fs.readFileSync(path.join(dir, "exit.log"), "utf8")).toBe("done\n");
  });
});

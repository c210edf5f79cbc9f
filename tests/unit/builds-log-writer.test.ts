import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { logWriterCommand } from "@/lib/builds/logs/log-writer";
import { isProcessGroupAlive } from "@/lib/builds/runtime/processes";

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "log-writer-"));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

/** Runs a shell command under the log writer, as spawnLogged does, and answers its exit and its log. */
function runLogged(command: string, limitBytes: number, mode: "exit" | "eof" = "exit", before = "") {
  const log = path.join(folder, `${crypto.randomUUID()}.log`);
  fs.writeFileSync(log, before);
  const fd = fs.openSync(log, "a");
  const writer = logWriterCommand({
    limitBytes,
    loggedBytes: Buffer.byteLength(before),
    mode,
    file: "/bin/sh",
    args: ["-c", command],
  });
  const child = spawn(writer.file, writer.args, {
    stdio: ["ignore", fd, fd],
    detached: true,
  });
  fs.closeSync(fd);
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; log: string; pid: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, log: fs.readFileSync(log, "utf8"), pid: child.pid! })),
  );
}

describe("the capping log writer", () => {
  it("writes stdout and stderr in order and exits with the command's code", async () => {
    const result = await runLogged("echo one; echo two >&2; echo three; exit 3", 1_000_000);
    expect(result).toMatchObject({ code: 3, signal: null, log: "one\ntwo\nthree\n" });
  });

  it("stops the log at the limit, says so, and lets the command go on to its end", async () => {
    // 2 MB through a 100 KB cap: were the rest not read, `yes` would block on a full pipe and never end.
    const result = await runLogged("yes 0123456789 | head -c 2000000; echo finished >&2; exit 0", 100_000);
    expect(result.code).toBe(0);
    const [kept, note] = [result.log.slice(0, 100_000), result.log.slice(100_000)];
    expect(kept).toBe("0123456789\n".repeat(10_000).slice(0, 100_000));
    expect(note).toBe(
      "\n[builds] The log reached its limit of 100000 bytes (stage_log_limit_mb): the rest of this output is not kept.\n",
    );
  });

  it("counts what the log already holds (a stage of several commands shares one limit)", async () => {
    const result = await runLogged("printf 'abcdefghij'", 25, "exit", "0123456789012345678\n");
    expect(result.log.startsWith("0123456789012345678\nabcde\n[builds] The log reached its limit of 25 bytes")).toBe(
      true,
    );
  });

  it("ends by the signal that ended the command, so the executor sees a kill as a kill", async () => {
    const result = await runLogged("echo started; kill -KILL $$", 1_000);
    expect(result).toMatchObject({ code: null, signal: "SIGKILL", log: "started\n" });
  });

  it("in eof mode stays while a background process still writes, and keeps its output", async () => {
    const result = await runLogged("(sleep 0.5; echo from-the-background) & echo from-the-shell", 1_000, "eof");
    expect(result.code).toBe(0);
    expect(result.log).toBe("from-the-shell\nfrom-the-background\n");
  });

  it("in exit mode ends a second after the command, though a background process still holds its output", {
    timeout: 30_000,
  }, async () => {
    const started = Date.now();
    const result = await runLogged("sleep 30 & echo from-the-shell", 1_000);
    // Far below the background's 30 s, with room for a loaded machine's slow start of the writer.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result).toMatchObject({ code: 0, signal: null, log: "from-the-shell\n" });
    process.kill(-result.pid, "SIGKILL");
  });

  it("gives the command back the signals it ignores itself: the group's SIGTERM ends the command, not the log", async () => {
    const log = path.join(folder, "signals.log");
    const fd = fs.openSync(log, "a");
    const writer = logWriterCommand({
      limitBytes: 1_000,
      loggedBytes: 0,
      mode: "exit",
      file: "/bin/sh",
      args: ["-c", "trap 'echo got-term; exit 7' TERM; echo up; sleep 30 & wait"],
    });
    const child = spawn(writer.file, writer.args, { stdio: ["ignore", fd, fd], detached: true });
    fs.closeSync(fd);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    while (!fs.readFileSync(log, "utf8").includes("up")) await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(-child.pid!, "SIGTERM");
    expect(await exited).toBe(7);
    expect(fs.readFileSync(log, "utf8")).toBe("up\ngot-term\n");
  });

  it("a SIGTERM to the group at any moment of its start ends the command: no moment of it ignores the signal", {
    timeout: 60_000,
  }, async () => {
    // Sent 0 to 19 ms after the start, so that some land while the writer forks and the command execs. A lost
    // one left `sleep 30` running: a cancel right after a stage started waited the grace period for SIGKILL.
    const survivors: number[] = [];
    for (let delayMs = 0; delayMs < 20; delayMs++) {
      const writer = logWriterCommand({ limitBytes: 1_000, loggedBytes: 0, mode: "exit", file: "sleep", args: ["30"] });
      const child = spawn(writer.file, writer.args, { stdio: "ignore", detached: true });
      const pgid = child.pid!;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      process.kill(-pgid, "SIGTERM");
      const deadline = Date.now() + 10_000;
      while (isProcessGroupAlive(pgid) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      if (isProcessGroupAlive(pgid)) {
        survivors.push(delayMs);
        process.kill(-pgid, "SIGKILL");
        break;
      }
    }
    expect(survivors, "the delays after which SIGTERM was lost").toEqual([]);
  });
});

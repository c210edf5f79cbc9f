/**
 * The capping log writer: a small Node.js process that runs a stage's (or a runtime's) command as its child
 * and appends the child's output to the log file, up to a limit; past it the log says it was truncated and
 * the rest is read and dropped, so the command goes on without being blocked or killed by a full pipe.
 *
 * Why a process of its own, and not a pipe into the server: a running preview must outlive a restart of the
 * server, so nothing may make it depend on the server process. The writer is the leader of the command's
 * process group (the handle the executor records), so it lives exactly as long as the group is stopped
 * together with it, and a restarted server finds it as before. It runs as the server's user and keeps the log
 * file's descriptor to itself; the command may run as another user (runtime.run_as), which then can neither
 * signal the writer nor reach its descriptor through /proc, so it cannot write past the cap.
 *
 * The script is passed to `node -e` so that it needs no file of its own next to Next's bundled server code.
 * argv: <limit bytes> <mode: exit|eof> <uid or -> <gid or -> <file> [args...]; the log is its stdout.
 * - mode `exit` (stages): once the command exits, what is left in the pipe is read for up to a second, then the
 *   writer exits with the command's status (background processes still holding the pipe are the executor's to stop).
 * - mode `eof` (runtimes): the writer stays as long as anything of the group holds the pipe, so a runtime whose
 *   shell started it in the background keeps its log.
 */
export const LOG_WRITER_SCRIPT = String.raw`
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const [limitArg, mode, uidArg, gidArg, file, ...args] = process.argv.slice(1);
const limit = Number(limitArg);
let size = 0;
try { size = fs.fstatSync(1).size; } catch {}
let truncated = false;
function write(chunk) {
  if (truncated) return;
  const room = limit - size;
  const part = chunk.length <= room ? chunk : chunk.subarray(0, Math.max(0, room));
  if (part.length > 0) writeAll(part);
  size += part.length;
  if (part.length < chunk.length) {
    truncated = true;
    writeAll(Buffer.from("\n[builds] The log reached its limit of " + limit + " bytes (stage_log_limit_mb): the rest of this output is not kept.\n"));
  }
}
function writeAll(buffer) {
  let done = 0;
  while (done < buffer.length) {
    try { done += fs.writeSync(1, buffer, done); } catch (error) { if (error.code !== "EAGAIN") { truncated = true; return; } }
  }
}
// The group gets SIGTERM when the stage is stopped: the command decides how to end, the writer keeps its log.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => {});
const options = { stdio: ["ignore", "pipe", "ignore"], env: process.env };
if (uidArg !== "-") options.uid = Number(uidArg);
if (gidArg !== "-") options.gid = Number(gidArg);
// The shell sends stderr into the same pipe, so both keep their order in the log.
const child = spawn("/bin/sh", ["-c", 'exec 2>&1; exec "$0" "$@"', file, ...args], options);
child.stdout.on("data", write);
let ended = false;
let status = null;
child.stdout.on("end", () => { ended = true; finish(); });
child.on("error", (error) => {
  write(Buffer.from("\n[builds] could not start " + file + ": " + error.message + "\n"));
  status = { code: 127, signal: null };
  ended = true;
  finish();
});
child.on("exit", (code, signal) => {
  status = { code, signal };
  if (mode === "exit") setTimeout(() => { ended = true; finish(); }, 1000).unref();
  finish();
});
function finish() {
  if (!ended || !status) return;
  if (status.signal) {
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.removeAllListeners(signal);
    process.kill(process.pid, status.signal);
    setTimeout(() => process.exit(128), 1000);
  } else {
    process.exit(status.code ?? 1);
  }
}
`;

/** The argv (after `node`) that runs `file args` under the capping writer. */
export function logWriterArgs(options: {
  limitBytes: number;
  mode: "exit" | "eof";
  user?: { uid: number; gid: number } | null;
  file: string;
  args: string[];
}): string[] {
  const { limitBytes, mode, user, file, args } = options;
  return [
    // A few MB of heap are plenty for a loop that copies 64 KB chunks; this keeps each writer small.
    "--max-old-space-size=16", "--max-semi-space-size=1",
    "-e",
    LOG_WRITER_SCRIPT,
    String(Math.floor(limitBytes)),
    mode,
    user ? String(user.uid) : "-",
    user ? String(user.gid) : "-",
    file,
    ...args,
  ];
}

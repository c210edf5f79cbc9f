import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * A child that logs the way a server does (a line every few milliseconds, and Next.js's habit of logging an
 * uncaught exception with console.error), counting its uncaught exceptions and its ticks in files, a byte each. The parent
 * closes the child's output pipes, as a dead supervisor would.
 */
function childScript(withGuard: boolean, folder: string): string {
  const guard = withGuard
    ? `(await import(${JSON.stringify(path.resolve("lib/server/log-pipes.ts"))})).dropOutputWithoutReader();`
    : "";
  return `
    import fs from "node:fs";
    ${guard}
    process.on("uncaughtException", (error) => {
      fs.appendFileSync(${JSON.stringify(path.join(folder, "uncaught"))}, ".");
      console.error("uncaught", error.message);
    });
    setInterval(() => {
      console.log("tick");
      fs.appendFileSync(${JSON.stringify(path.join(folder, "ticks"))}, ".");
    }, 10);
  `;
}

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

function readCount(file: string): number {
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
}

/** Starts the child, waits for its first line, closes its pipes and lets it tick 20 more times. */
async function runWithClosedPipes(withGuard: boolean): Promise<{ uncaught: number; alive: boolean }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "log-pipes-"));
  const script = path.join(folder, "child.mts");
  fs.writeFileSync(script, childScript(withGuard, folder));
  const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  await new Promise((resolve) => child.stdout!.once("data", resolve));
  child.stdout!.destroy();
  child.stderr!.destroy();
  const ticksAtClose = readCount(path.join(folder, "ticks"));
  await expect
    .poll(() => readCount(path.join(folder, "ticks")), { timeout: 10_000 })
    .toBeGreaterThan(ticksAtClose + 20);
  const result = {
    uncaught: readCount(path.join(folder, "uncaught")),
    alive: child.exitCode === null && child.signalCode === null,
  };
  child.kill("SIGKILL");
  await new Promise((resolve) =>
    child.exitCode === null && child.signalCode === null ? child.once("exit", resolve) : resolve(null),
  );
  fs.rmSync(folder, { recursive: true, force: true });
  return result;
}

describe("a server whose output pipe has no reader any more", () => {
  it("drops its output and goes on, instead of logging each failed write as an uncaught exception", async () => {
    const guarded = await runWithClosedPipes(true);
    expect(guarded).toEqual({ uncaught: 0, alive: true });
  });

  it("(without the guard, each failed write is an uncaught exception that logs another: the loop that spins a core)", async () => {
    const unguarded = await runWithClosedPipes(false);
    expect(unguarded.uncaught).toBeGreaterThan(100);
  });
});

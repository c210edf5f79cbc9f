import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Job } from "@/lib/server/job";
import { listJobs, runJobSoon, startJob, stopJob } from "@/lib/server/scheduler";

/**
 * The scheduler of the background jobs (lib/server/scheduler.ts), on Node's timers driven by vitest's clock: the
 * tests move the clock, so a run's length and an interval are exact.
 */
beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-11-27T08:00:00Z") });
});
afterEach(async () => {
  const stopped = Promise.all(listJobs().map((job) => stopJob(job.name)));
  await vi.runAllTimersAsync();
  await stopped;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A job whose runs are recorded, each taking `takesMs` of the clock. */
function recorded(name: string, options: Partial<Job> & { takesMs?: number } = {}) {
  const runs: { at: number; ended?: number }[] = [];
  let inFlight = 0;
  let mostAtOnce = 0;
  const job: Job = {
    name,
    runsOn: "each",
    every: () => 1_000,
    run: async () => {
      const run: { at: number; ended?: number } = { at: Date.now() };
      runs.push(run);
      mostAtOnce = Math.max(mostAtOnce, ++inFlight);
      if (options.takesMs) await new Promise((resolve) => setTimeout(resolve, options.takesMs));
      inFlight--;
      run.ended = Date.now();
    },
    ...options,
  };
  return { job, runs, mostAtOnce: () => mostAtOnce };
}

const startedAt = () => new Date("2026-11-27T08:00:00Z").getTime();

describe("a periodic job", () => {
  it("runs one interval after the start, then every interval, and is listed with its last and next run", async () => {
    const { job, runs } = recorded("ticks");
    await startJob(job);
    expect(runs).toHaveLength(0);
    expect(listJobs()).toEqual([
      expect.objectContaining({ name: "ticks", runsOn: "each", runs: 0, nextRunAt: new Date(startedAt() + 1_000) }),
    ]);
    await vi.advanceTimersByTimeAsync(3_500);
    expect(runs.map((run) => run.at - startedAt())).toEqual([1_000, 2_000, 3_000]);
    expect(listJobs()[0]).toMatchObject({
      runs: 3,
      failures: 0,
      running: false,
      lastRunAt: new Date(startedAt() + 3_000),
      nextRunAt: new Date(startedAt() + 4_000),
    });
  });

  it("runs first at start when asked: awaited, the run has ended when startJob returns", async () => {
    const awaited = recorded("awaited", { firstRun: "awaited", takesMs: 200 });
    const starting = startJob(awaited.job);
    await vi.advanceTimersByTimeAsync(200);
    await starting;
    expect(awaited.runs).toEqual([{ at: startedAt(), ended: startedAt() + 200 }]);

    const atStart = recorded("at start", { firstRun: "at start", takesMs: 200 });
    await startJob(atStart.job);
    expect(atStart.runs).toEqual([{ at: startedAt() + 200 }]);
  });

  it("never overlaps a run with itself: a run that overran is followed at once", async () => {
    const { job, runs, mostAtOnce } = recorded("slow", { takesMs: 2_500 });
    await startJob(job);
    await vi.advanceTimersByTimeAsync(1_000 + 2_500 + 2_500 + 100);
    expect(mostAtOnce()).toBe(1);
    // Due at 2 s and 3 s while the first ran until 3.5 s: one run right after it (a timer's least delay, 1 ms), none
    // piled up.
    expect(runs).toHaveLength(3);
    expect(runs[0].at - startedAt()).toBe(1_000);
    for (const [before, after] of [runs.slice(0, 2), runs.slice(1, 3)])
      expect(after.at - (before.ended ?? Number.NaN)).toBeLessThanOrEqual(1);
  });

  it("logs and counts a run that fails, and runs again at the next interval", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    let calls = 0;
    await startJob({
      name: "flaky",
      runsOn: "each",
      every: () => 1_000,
      run: () => {
        if (++calls === 1) throw new Error("the database did not answer");
      },
    });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls).toBe(2);
    expect(listJobs()[0]).toMatchObject({ runs: 2, failures: 1, lastFailure: "the database did not answer" });
    expect(logged).toHaveBeenCalledWith('jobs: a run of "flaky" failed:', expect.any(Error));
  });

  it("chooses its next run itself when it says so (a retry sooner than the interval)", async () => {
    const { job, runs } = recorded("retrying", {
      firstRun: "at start",
      nextRunAt: (lastRunAt) => lastRunAt + (runs.length < 3 ? 100 : 1_000),
    });
    await startJob(job);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(runs.map((run) => run.at - startedAt())).toEqual([0, 100, 200, 1_200]);
  });

  it("does not run at all when its setting is off (every() gives null), though it is started", async () => {
    const started = vi.fn();
    const { job, runs } = recorded("off", { every: () => null, firstRun: "at start", start: started });
    await startJob(job);
    runJobSoon("off");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(started).toHaveBeenCalledOnce();
    expect(runs).toHaveLength(0);
    expect(listJobs()[0]).toMatchObject({ name: "off", nextRunAt: null });
  });
});

describe("runJobSoon", () => {
  it("runs the job now, and asked during a run, once more right after it, however often it was asked", async () => {
    const { job, runs, mostAtOnce } = recorded("nudged", { takesMs: 300 });
    await startJob(job);
    runJobSoon("nudged");
    expect(runs.map((run) => run.at - startedAt())).toEqual([0]);
    runJobSoon("nudged");
    runJobSoon("nudged");
    await vi.advanceTimersByTimeAsync(650);
    expect(runs).toHaveLength(2);
    expect(runs[1].at - startedAt()).toBeGreaterThanOrEqual(300);
    expect(runs[1].at - startedAt()).toBeLessThanOrEqual(301);
    expect(mostAtOnce()).toBe(1);
    // The interval counts from the last run's start again.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs.map((run) => run.at - runs[1].at)).toEqual([runs[0].at - runs[1].at, 0, 1_000]);
  });

  it("does nothing for a job that does not run here", () => {
    expect(() => runJobSoon("nobody's job")).not.toThrow();
  });
});

describe("stopJob", () => {
  it("aborts the run in flight's signal, waits for it, then calls the job's stop; no run follows", async () => {
    const order: string[] = [];
    let signal: AbortSignal | undefined;
    await startJob({
      name: "stoppable",
      runsOn: "each",
      every: () => 1_000,
      firstRun: "at start",
      run: async (given) => {
        signal = given;
        order.push("run began");
        await new Promise((resolve) => setTimeout(resolve, 500));
        order.push(`run ended, aborted: ${given.aborted}`);
      },
      stop: () => void order.push("stop"),
    });
    const stopping = stopJob("stoppable");
    expect(signal?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    await stopping;
    expect(order).toEqual(["run began", "run ended, aborted: true", "stop"]);
    expect(listJobs()).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(order).toHaveLength(3);
  });

  it("lets the job be started again, and a job started twice runs once", async () => {
    const { job, runs } = recorded("again");
    await startJob(job);
    await startJob(job);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toHaveLength(1);
    await stopJob("again");
    await startJob(job);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toHaveLength(2);
  });
});

describe("startJob", () => {
  it("gives back a start that fails, and leaves the job stopped", async () => {
    const refused = startJob({
      name: "refused",
      runsOn: "each",
      start: () => {
        throw new Error("bad settings");
      },
    });
    await expect(refused).rejects.toThrow("bad settings");
    expect(listJobs()).toEqual([]);
  });
});

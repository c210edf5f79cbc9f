import type { Job } from "../server/job";
import {
  beatHeart,
  describeDisagreement,
  InstanceNameTaken,
  lostAfterMs,
  type Membership,
  registerInstance,
  thisInstanceName,
} from "./instances";
import { failBuildsOfLostHosts } from "./lost-hosts";

/**
 * The instance's own background work, the first job to start (jobs.ts): it refuses to start when another
 * live process holds its INSTANCE_NAME, or, in a cluster (`judgeOthers`), when its shared builds settings differ
 * from a live instance's; it registers itself, then every sixth of INSTANCE_LOST_AFTER_SECONDS (5 s by default)
 * moves its heartbeat and, in a cluster, fails the builds of instances that lost theirs.
 *
 * An instance judges the others only once it has itself beaten without a break for INSTANCE_LOST_AFTER_SECONDS:
 * after a database outage (a restart, a failover) every heartbeat is as old as the outage, its own too, and the
 * others, alive, need that long to beat again. So does one just started, or paused (a break is a failed beat, or
 * more than two beats' time between two that landed).
 */
interface HeartbeatState {
  /** When (performance.now()) the beats of the current unbroken run began, and the last of them landed. */
  unbrokenSince: number | null;
  lastBeatAt: number | null;
}

/** How often an instance moves its heartbeat: six beats within the time after which it counts as lost. */
export function heartbeatIntervalMs(): number {
  return lostAfterMs() / 6;
}

async function joinInstances(membership: Membership, options: { judgeOthers: boolean }): Promise<void> {
  const disagreement = options.judgeOthers ? await describeDisagreement(membership) : null;
  if (disagreement !== null) {
    // Next would log an error thrown from instrumentation and serve anyway: a builder that reads builds
    // differently from the instance that accepted them must not start.
    console.error(`Refusing to start: ${disagreement}`);
    process.exit(1);
  }
  await registerInstance(membership).catch(exitIfNameTaken("Refusing to start"));
}

async function beat(state: HeartbeatState, membership: Membership, options: { judgeOthers: boolean }): Promise<void> {
  try {
    if ((await beatHeart().catch(exitIfNameTaken("Stopping"))) === "gone")
      await registerInstance(membership).catch(exitIfNameTaken("Stopping"));
    if (beatenUnbrokenMs(state, performance.now()) < lostAfterMs() || !options.judgeOthers) return;
    const { failed, expired } = await failBuildsOfLostHosts(membership.failBuildsOfLostHost);
    if (failed.length > 0) console.warn(`cluster: failed the builds of lost hosts: ${failed.join(", ")}`);
    if (expired.length > 0) console.warn(`cluster: expired the previews of lost hosts: ${expired.join(", ")}`);
  } catch (error) {
    state.unbrokenSince = null;
    state.lastBeatAt = null;
    console.error(`cluster: the heartbeat of ${thisInstanceName()} failed: ${(error as Error).message}`);
  }
}

/** Notes a beat that landed at `now`; returns for how long this instance has beaten without a break. */
function beatenUnbrokenMs(state: HeartbeatState, now: number): number {
  if (state.lastBeatAt === null || now - state.lastBeatAt > 2 * heartbeatIntervalMs()) state.unbrokenSince = now;
  state.lastBeatAt = now;
  return now - (state.unbrokenSince ?? now);
}

/**
 * Another live process holds this instance's name: at start this one must not run; later (this process was
 * paused past INSTANCE_LOST_AFTER_SECONDS and another took its name over) it must not go on as a second holder.
 * Next would log an error thrown from instrumentation and serve anyway, hence the exit.
 */
function exitIfNameTaken(what: string) {
  return (error: unknown): never => {
    if (!(error instanceof InstanceNameTaken)) throw error;
    console.error(`${what}: ${error.message}`);
    process.exit(1);
  };
}

/**
 * The heartbeat as a job (lib/topology's membershipJob), started before every other: the executor's claims name
 * this instance as their host. Its first beat ends before the next job starts.
 */
export function heartbeatJob(membership: () => Membership, options: { judgeOthers: boolean }): Job {
  const state: HeartbeatState = { unbrokenSince: null, lastBeatAt: null };
  let joined: Membership | null = null;
  return {
    name: "instance heartbeat",
    runsOn: "each",
    async start() {
      joined = membership();
      await joinInstances(joined, options);
    },
    every: heartbeatIntervalMs,
    firstRun: "awaited",
    run: () => beat(state, joined ?? membership(), options),
  };
}

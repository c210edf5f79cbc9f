import type { Caller, LostHost } from "../cluster/forwarding";
import type { InstanceView, Membership } from "../cluster/instances";
import type { Channel } from "../cluster/notifications";
import type { PeerIdentity } from "../cluster/peer-auth";
import type { Job } from "../server/job";

/**
 * One instance or several: what the domains ask instead of which database this is. Chosen once at start
 * (lib/topology/index.ts): a SQLite file is served by one instance (one server per data folder,
 * lib/server/pid-file.ts), a PostgreSQL database may be shared by several, a cluster.
 *
 * The intended flow, for an instance of a cluster:
 *
 *  1. At start, `membershipJob` (the first of the jobs in jobs.ts) compares this instance's shared builds
 *     settings with the live instances' and refuses to start on a difference, registers the instance under its
 *     name, then beats every sixth of INSTANCE_LOST_AFTER_SECONDS. Once it has beaten unbroken for that long it
 *     judges the others: an instance whose heartbeat stopped is lost, and the membership's `failBuildsOfLostHost`
 *     (handed in by the builds) fails what it had in progress.
 *  2. Jobs that run on `one` instance (the bank's schedule, repository polling) go through `runOnce`: they run
 *     only while this instance holds their lease. Their holder `announceNextRun`s, so any instance can tell
 *     (`announcedNextRun`).
 *  3. A build queued here is announced with `notify("build_queued")`; every instance `listen`s and claims it
 *     if it has a free slot. Claims name the claimer (`instanceName`) as the build's host, and each instance
 *     looks after its own builds only (`buildsOfThisHost`).
 *  4. A request about a build another instance hosts (its logs, its runtime) is passed there by
 *     `forwardToBuildHost`, signed; its answer comes back as it is.
 *  5. Work that checks then acts across several slow steps takes `withLock` across the instances. Times that
 *     instances compare are `now()`, the database's clock.
 *
 * On a single instance each step is the plain case: the heartbeat registers and beats (GET /metrics lists the
 * instance) but judges nobody, jobs run at once, notices and forwarding do nothing, a lock is the caller's own
 * serialisation, and every build is this instance's.
 */
export interface Topology {
  /**
   * Whether another instance may share this one's database and take up work this one leaves: a queued build
   * while this instance has no slot for it (max_concurrent_builds 0). False on a single instance, where work it
   * does not do is done by nobody.
   */
  readonly othersCanTakeWork: boolean;
  /** This instance's name (INSTANCE_NAME): the `host` of the builds it claims. */
  instanceName(): string;
  /** The builds this instance looks after: every build (undefined) on a single instance, those it claimed in a cluster. */
  buildsOfThisHost(): string | undefined;
  /** Now, by the clock the instances agree on. */
  now(): Promise<Date>;
  /** Runs `work` while no other instance runs work under the same lock name. */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** The job, run on one instance at a time. */
  runOnce(job: Job): Job;
  /** The holder of a `once` job says when it runs it next (null: not known). */
  announceNextRun(job: string, at: Date | null): Promise<void>;
  /** The next run another instance's holder announced, or null. */
  announcedNextRun(job: string): Promise<Date | null>;
  /** Wakes every listening instance, this one included. */
  notify(channel: Channel): Promise<void>;
  /** Calls `onNotice` on each notice; returns the function that stops listening. */
  listen(channel: Channel, onNotice: () => void): () => void;
  /** The host's answer when another instance hosts the build; null when this instance serves the request. */
  forwardToBuildHost(
    request: Request,
    buildId: string,
    caller: Caller & { identity?: PeerIdentity },
    options?: { whenHostLost?: (host: LostHost) => Promise<Response> },
  ): Promise<Response | null>;
  /**
   * A signed POST of `path` to the instance `name`, on behalf of `client`; null when that instance registered no
   * address. For what a build's host must do itself when a request reached another instance (a wake on a visit).
   */
  postToInstance(name: string, path: string, client: string, timeoutMs: number): Promise<Response | null>;
  /** The registered instances, this one included, by name; `live` when their heartbeat is recent at `now`. */
  instances(now: Date): Promise<InstanceView[]>;
  /** The instance's registration and heartbeat, started before every other job. */
  membershipJob(membership: () => Membership): Job;
}

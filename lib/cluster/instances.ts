import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execute, queryAll, queryOne } from "../db/hot-sql";
import { databaseNow } from "../db/statements/database-now";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";

/**
 * The instances sharing one database. Each registers itself at start in the Instance table under its
 * name (INSTANCE_NAME) and moves its heartbeat every few seconds; a build's `host` is the name of the instance
 * that claimed it. Times are the database's clock on PostgreSQL, where instances run on several machines whose
 * clocks may differ; on SQLite there is one machine.
 */
export interface InstanceRecord {
  name: string;
  url: string | null;
  startedAt: Date;
  heartbeatAt: Date;
  builderSlots: number;
  buildsSettings: string;
  buildsFingerprint: string;
  processId: string;
  machine: string;
  pid: number;
  previewAddress: string | null;
}

/**
 * The process that holds this instance's name: a random id made when it starts, and the machine and pid that tell
 * this instance's crashed past (same machine, that pid gone) from another live process. On globalThis: Next
 * bundles instrumentation apart from the route handlers, and all must see one id.
 */
export interface ProcessIdentity {
  id: string;
  machine: string;
  pid: number;
}

const globalForProcess = processWide<{ instanceProcess?: ProcessIdentity }>("instanceProcess", () => ({}));

export function thisProcess(): ProcessIdentity {
  return (globalForProcess.instanceProcess ??= {
    id: crypto.randomBytes(12).toString("hex"),
    machine: os.hostname(),
    pid: process.pid,
  });
}

/** Another live process holds this instance's name: this one must not run under it. */
export class InstanceNameTaken extends Error {}

/** This instance's name (INSTANCE_NAME, or host name and port): the `host` of the builds it claims. */
export function thisInstanceName(): string {
  return getEnv().INSTANCE_NAME;
}

/** The host part of an instance name ("build-1:3000" gives "build-1"): what `{host}` is in preview_url. */
export function hostPartOf(instanceName: string): string {
  return instanceName.replace(/:\d+$/, "");
}

export { databaseNow };

/**
 * What an instance records of itself when it joins, and what it does about an instance found lost: handed in by
 * the builds (lib/builds/membership.ts), which the cluster code does not import.
 */
export interface Membership {
  /** The builds settings file, named in messages. */
  settingsFile: string;
  /** The settings every instance must share, compared by their fingerprint. */
  sharedSettings: Record<string, unknown>;
  builderSlots: number;
  previewAddress: string | null;
  /** Fails the builds a lost host had in progress and expires its previews; returns the ids it changed. */
  failBuildsOfLostHost(host: LostHost, now: Date): Promise<{ failed: string[]; expired: string[] }>;
}

/** An instance whose heartbeat stopped: what a request about its build, or the instance noticing, can say of it. */
export interface LostHost {
  name: string;
  lastHeartbeat: Date;
}

/** The SHA-256 of the shared settings' canonical JSON. */
export function fingerprintOf(settings: Record<string, unknown>): string {
  return sha256(JSON.stringify(settings));
}

type Holder = Pick<InstanceRecord, "processId" | "machine" | "pid" | "url" | "startedAt" | "heartbeatAt">;

async function holderOf(name: string): Promise<Holder | undefined> {
  const row = await queryOne<Holder>(
    `SELECT "processId", "machine", "pid", "url", "startedAt", "heartbeatAt" FROM "Instance" WHERE "name" = ?`,
    [name],
  );
  return row && { ...row, startedAt: new Date(row.startedAt), heartbeatAt: new Date(row.heartbeatAt) };
}

function describeHolder(name: string, holder: Holder): string {
  return (
    `INSTANCE_NAME ${name} is held by a live instance (INSTANCE_URL ${holder.url ?? "unset"}, pid ${holder.pid} on ${holder.machine}, ` +
    `started at ${holder.startedAt.toISOString()}, last heartbeat at ${holder.heartbeatAt.toISOString()}). Two instances under one ` +
    "name would claim builds as the same host and clean up each other's builds: give each its own INSTANCE_NAME. " +
    `An instance started again after a crash takes its name back once the old heartbeat stops moving.`
  );
}

/** Whether a process of this machine is alive (a zombie, killed and not yet reaped, is not). */
function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/**
 * Whether the process that holds the name is still alive. It is not when no process is recorded (a row written
 * before processes were), when its heartbeat is older than INSTANCE_LOST_AFTER_SECONDS, or when it ran on this machine and its pid is gone
 * (this instance's own past, killed a moment ago). Otherwise only its heartbeat can tell: a live holder moves it
 * every sixth of INSTANCE_LOST_AFTER_SECONDS, so it is watched for two of those periods.
 */
async function isHolderAlive(name: string, holder: Holder): Promise<boolean> {
  if (holder.processId === "") return false;
  if ((await databaseNow()).getTime() - holder.heartbeatAt.getTime() > lostAfterMs()) return false;
  const me = thisProcess();
  if (holder.machine === me.machine && holder.pid !== me.pid && !isProcessAlive(holder.pid)) return false;
  const watchMs = (lostAfterMs() / 6) * 2;
  await sleep(watchMs);
  const now = await holderOf(name);
  if (now && (now.processId !== holder.processId || now.heartbeatAt.getTime() !== holder.heartbeatAt.getTime()))
    return true;
  console.warn(
    `cluster: INSTANCE_NAME ${name} was held by pid ${holder.pid} on ${holder.machine}, whose heartbeat did not move for ` +
      `${Math.round(watchMs / 1000)} s: taking it over.`,
  );
  return false;
}

/**
 * Records this instance as started now under its name, with its slots and its shared settings, and as held by
 * this process. A name held by another live process is refused (InstanceNameTaken, naming it); a name this
 * instance's past left (a crash, a stop) is taken back. Taking it is a compare-and-set on the holder seen, so two
 * processes starting at once under one name do not both get it.
 */
export async function registerInstance(
  membership: Membership,
  url: string | null = getEnv().INSTANCE_URL ?? null,
): Promise<void> {
  const name = thisInstanceName();
  const me = thisProcess();
  const settings = JSON.stringify(membership.sharedSettings);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const holder = await holderOf(name);
    if (holder && holder.processId !== me.id && (await isHolderAlive(name, holder)))
      throw new InstanceNameTaken(describeHolder(name, holder));
    const now = await databaseNow();
    const values = [
      url,
      now,
      now,
      membership.builderSlots,
      settings,
      sha256(settings),
      me.id,
      me.machine,
      me.pid,
      membership.previewAddress,
      name,
    ];
    const taken = holder
      ? await execute(
          `UPDATE "Instance" SET "url" = ?, "startedAt" = ?, "heartbeatAt" = ?, "builderSlots" = ?, "buildsSettings" = ?, "buildsFingerprint" = ?,
             "processId" = ?, "machine" = ?, "pid" = ?, "previewAddress" = ?
           WHERE "name" = ? AND "processId" = ?`,
          [...values, holder.processId],
        )
      : await execute(
          `INSERT INTO "Instance" ("url", "startedAt", "heartbeatAt", "builderSlots", "buildsSettings", "buildsFingerprint", "processId", "machine", "pid", "previewAddress", "name")
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("name") DO NOTHING`,
          values,
        );
    if (taken === 1) return;
    // Another process took or created the row between the read and the write: judge the new holder.
  }
  throw new InstanceNameTaken(
    `INSTANCE_NAME ${name} changed hands five times while this instance started: another process starts under it.`,
  );
}

/**
 * Moves this instance's heartbeat to now, if this process still holds its name. "gone" when the row is gone (it
 * registers again); an InstanceNameTaken when another process holds the name: one that found this instance's
 * heartbeat standing still (a process paused past INSTANCE_LOST_AFTER_SECONDS) and took it over.
 */
export async function beatHeart(): Promise<"beat" | "gone"> {
  const name = thisInstanceName();
  const me = thisProcess();
  if (
    (await execute(`UPDATE "Instance" SET "heartbeatAt" = ? WHERE "name" = ? AND "processId" = ?`, [
      await databaseNow(),
      name,
      me.id,
    ])) === 1
  )
    return "beat";
  const holder = await holderOf(name);
  if (!holder) return "gone";
  throw new InstanceNameTaken(describeHolder(name, holder));
}

/** Every registered instance, this one included, by name. */
export async function listInstances(): Promise<InstanceRecord[]> {
  const rows = await queryAll<InstanceRecord>(`SELECT * FROM "Instance" ORDER BY "name"`);
  return rows.map((row) => ({ ...row, startedAt: new Date(row.startedAt), heartbeatAt: new Date(row.heartbeatAt) }));
}

function sha256(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}

/**
 * The first setting where two instances' shared settings differ, as a key path ("ttl.max_seconds",
 * "repositories[0].default_ref"), with each side's value; null when they agree.
 */
export function firstDifference(
  mine: unknown,
  theirs: unknown,
  at = "",
): { setting: string; mine: unknown; theirs: unknown } | null {
  if (JSON.stringify(mine) === JSON.stringify(theirs)) return null;
  const bothObjects = (a: unknown, b: unknown) =>
    a !== null && b !== null && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects(mine, theirs)) return { setting: at || "(all)", mine, theirs };
  const a = mine as Record<string, unknown>;
  const b = theirs as Record<string, unknown>;
  if (Array.isArray(a) && a.length !== (b as unknown as unknown[]).length) {
    return {
      setting: `${at || "(all)"} (${a.length} entries here, ${(b as unknown as unknown[]).length} there)`,
      mine,
      theirs,
    };
  }
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const path = Array.isArray(a) ? `${at}[${key}]` : at ? `${at}.${key}` : key;
    const difference = firstDifference(a[key], b[key], path);
    if (difference) return difference;
  }
  return null;
}

/** The time after which an instance without a heartbeat is lost (INSTANCE_LOST_AFTER_SECONDS). */
export function lostAfterMs(): number {
  return getEnv().INSTANCE_LOST_AFTER_SECONDS * 1000;
}

/** A registered instance as the others see it: live while its heartbeat is younger than INSTANCE_LOST_AFTER_SECONDS. */
export interface InstanceView {
  name: string;
  heartbeatAt: Date;
  live: boolean;
}

/** Every registered instance, this one included, by name, and whether it is live at `now`. */
export async function viewInstances(now: Date): Promise<InstanceView[]> {
  return (await listInstances()).map(({ name, heartbeatAt }) => ({
    name,
    heartbeatAt,
    live: now.getTime() - heartbeatAt.getTime() <= lostAfterMs(),
  }));
}

/** The other instances whose heartbeat is recent: alive, as far as anyone can tell. */
export async function listLiveInstances(): Promise<InstanceRecord[]> {
  const since = (await databaseNow()).getTime() - lostAfterMs();
  return (await listInstances()).filter(
    (instance) => instance.name !== thisInstanceName() && instance.heartbeatAt.getTime() >= since,
  );
}

/**
 * Why this instance may not join the live ones: the first shared builds setting where its configuration differs
 * from a live instance's, named with both values; null when they all agree.
 */
export async function describeDisagreement(membership: Membership): Promise<string | null> {
  const mine = membership.sharedSettings;
  const fingerprint = fingerprintOf(mine);
  for (const other of await listLiveInstances()) {
    if (other.buildsFingerprint === fingerprint) continue;
    const theirs = JSON.parse(other.buildsSettings);
    // Turning the gateway on (or off) goes one instance at a time: one side without it is that change under way.
    const rollingOut = (mine.gateway === undefined) !== (theirs.gateway === undefined);
    const difference = rollingOut
      ? firstDifference({ ...mine, gateway: undefined }, { ...theirs, gateway: undefined })
      : (firstDifference(mine, theirs) ?? { setting: "(all)", mine, theirs: "?" });
    if (!difference) continue;
    return (
      `${path.basename(membership.settingsFile)}: ${difference.setting} differs from the live instance ${other.name}'s ` +
      `(here ${JSON.stringify(difference.mine) ?? "unset"}, there ${JSON.stringify(difference.theirs) ?? "unset"}). ` +
      "Repositories, ttl, the runtime and the other shared builds settings must be the same on every instance " +
      "(each keeps its own builds_root, ports and max_concurrent_builds)."
    );
  }
  return null;
}

import crypto from "node:crypto";
import fs from "node:fs";
import type { LostHost, Membership } from "../topology";
import { type BuildsConfig, getBuildsConfig } from "./config";
import { failInProgressBuildsOfHost, listExpiredRunningBuilds, moveBuild } from "./repository";

/**
 * What this instance tells the others about its builds when it joins (lib/topology: its membership), and what it
 * does about the builds of an instance found lost.
 */
export function buildsMembership(config: BuildsConfig = getBuildsConfig()): Membership {
  return {
    settingsFile: config.file,
    sharedSettings: sharedBuildsSettings(config),
    builderSlots: config.max_concurrent_builds,
    previewAddress: config.preview_address,
    failBuildsOfLostHost,
  };
}

/**
 * The builds settings that every instance must share, as a plain object with sorted keys: a build may be created
 * through one instance and run by another, so both must read its repositories, time to live and runtime alike.
 * Left out are what each host keeps for itself (builds_root, ports, max_concurrent_builds, max_awake_builds, the
 * uids it runs builds as, how often its reaper looks) and secrets (webhook secrets, which only their names stand
 * for). The Compose template is compared by its content, which may live at another path on each machine.
 */
export function sharedBuildsSettings(config: BuildsConfig): Record<string, unknown> {
  const { run_as_uids: _ownUids, compose, ...runtime } = config.runtime;
  return sortKeys({
    repositories: config.repositories.map(
      ({ webhook_secret, webhookSecret: _secret, previewBypassSecret: _bypass, url: _asWritten, ...repository }) => ({
        ...repository,
        webhook_secret: webhook_secret === undefined ? undefined : "(set)",
      }),
    ),
    ttl: config.ttl,
    runtime: {
      ...runtime,
      compose: compose && { ...compose, template: `sha256:${sha256(readOrEmpty(compose.template))}` },
    },
    preview_url: config.preview_url,
    gateway: config.gateway,
    stage_timeout_seconds: config.stage_timeout_seconds,
    stage_log_limit_mb: config.stage_log_limit_mb,
    max_queued_builds: config.max_queued_builds,
    limits: config.limits,
    retention_days: config.retention_days,
  }) as Record<string, unknown>;
}

/**
 * The builds a lost host had in progress fail, naming it, and its previews past their time to live expire; the
 * failing is one conditional UPDATE, so two instances noticing together do not both act, and a host that came back
 * first (its own recovery) leaves nothing to do. Its runtimes, ports and processes stay recorded: they are on that
 * host, which cleans them up when it comes back (lib/builds/queue/executor.ts recovery, the reaper's unfinished
 * destroys). Queued builds were never its own: they wait for any instance with a free slot.
 */
async function failBuildsOfLostHost(host: LostHost, now: Date): Promise<{ failed: string[]; expired: string[] }> {
  const message = `The host ${host.name} running the build was lost: its last heartbeat was at ${host.lastHeartbeat.toISOString()}. The build was not resumed.`;
  const failed = await failInProgressBuildsOfHost(host.name, message, now);
  return { failed, expired: await expirePreviewsOfHost(host.name, now) };
}

/**
 * The previews of a lost host that reached their time to live: its reaper cannot move them, so they would show as
 * running for as long as it stays away. They are moved to expired (a conditional move: two instances do it once);
 * their runtime stays recorded, and the host's unfinished-destroy pass removes it when it comes back.
 */
async function expirePreviewsOfHost(host: string, now: Date): Promise<string[]> {
  const expired: string[] = [];
  for (const build of await listExpiredRunningBuilds(now, host)) {
    if (build.host !== host) continue;
    if (await moveBuild(build.id, build.status as "running" | "sleeping", "expired")) expired.push(build.id);
  }
  return expired;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, entry]) => [key, sortKeys(entry)]),
  );
}

function sha256(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

import type { z } from "zod";
import { getDb } from "../db";
import { type BuildsConfig, getBuildsConfig } from "./config";
import { cleanErrorText, fingerprintOf, type LogCheckResult } from "./logs/log-checks";
import { workspacePaths } from "./runtime/workspace";
import type { BuildErrorListView, listBuildErrorsQuerySchema } from "./schemas";
import { type BuildAccessFacts, effectivePreviewAccess } from "./visibility";

/**
 * Build errors across builds: what the log checks found in each stage is added to its build's counts, and each
 * error is kept cleaned and fingerprinted (lib/builds/logs/log-checks.ts), so that GET /builds/errors shows which
 * errors recur, on how many builds and branches, and whether the base branches have them too.
 */

/** Adds a stage's findings to its build: the counts, and each error with its fingerprint. */
export async function recordLogChecks(
  config: BuildsConfig,
  buildId: string,
  stage: string,
  found: LogCheckResult,
): Promise<void> {
  if (found.errors === 0 && found.warnings === 0) return;
  const db = getDb();
  const build = await db.build.update({
    where: { id: buildId },
    data: { logErrors: { increment: found.errors }, logWarnings: { increment: found.warnings } },
    select: { branch: true, repositories: { select: { ref: true }, orderBy: { position: "asc" }, take: 1 } },
  });
  if (found.entries.length === 0) return;
  const paths = workspacePaths(config, buildId);
  const branch = build.branch ?? build.repositories[0]?.ref ?? "";
  const now = new Date();
  await db.buildLogError.createMany({
    data: found.entries.map((raw) => {
      const cleaned = cleanErrorText(raw, { id: buildId, paths: [paths.root, config.builds_root] });
      return { buildId, stage, fingerprint: fingerprintOf(cleaned), cleaned, raw, branch, createdAt: now };
    }),
  });
}

/** How many of the newest recorded errors GET /builds/errors groups: older ones fall out of it first. */
const ERRORS_READ = 5_000;
/** How many builds of an error are linked. */
const BUILDS_LINKED = 10;

/**
 * A build's errors are shown to the people who may open its preview: a build whose preview is for signed-in
 * users only (its own choice, else its first repository's preview_access: users) is private.
 */
function isPrivateBuild(build: BuildAccessFacts): boolean {
  return effectivePreviewAccess(build) === "users";
}

/**
 * Whether one of the branches an error was seen on is a base branch: some repository's default_ref, or the base
 * of another branch it was seen on (`16.0` of `16.0-fix-sale`). An error only on feature branches is theirs.
 */
export function seenOnBase(branches: readonly string[], defaultRefs: ReadonlySet<string>): boolean {
  return branches.some((branch) => defaultRefs.has(branch) || branches.some((other) => other.startsWith(`${branch}-`)));
}

/** The errors found in builds' logs, grouped by fingerprint, the most recently seen first. */
export async function listBuildErrors(
  query: z.output<typeof listBuildErrorsQuerySchema>,
  signedIn: boolean,
): Promise<BuildErrorListView> {
  const rows = await getDb().buildLogError.findMany({
    orderBy: { id: "desc" },
    take: ERRORS_READ,
    include: {
      build: {
        select: {
          previewAccess: true,
          repositories: { select: { alias: true, position: true }, orderBy: { position: "asc" } },
        },
      },
    },
  });
  const defaultRefs = new Set(getBuildsConfig().repositories.map((repository) => repository.default_ref));
  const groups = new Map<
    string,
    { cleaned: string; sample: string; builds: string[]; branches: Set<string>; first: Date; last: Date }
  >();
  for (const row of rows) {
    if (!signedIn && isPrivateBuild(row.build)) continue;
    let group = groups.get(row.fingerprint);
    if (!group) {
      // Rows come newest first: the first of a fingerprint is its newest sample.
      group = {
        cleaned: row.cleaned,
        sample: row.raw,
        builds: [],
        branches: new Set(),
        first: row.createdAt,
        last: row.createdAt,
      };
      groups.set(row.fingerprint, group);
    }
    if (!group.builds.includes(row.buildId)) group.builds.push(row.buildId);
    if (row.branch) group.branches.add(row.branch);
    if (row.createdAt < group.first) group.first = row.createdAt;
    if (row.createdAt > group.last) group.last = row.createdAt;
  }
  const errors = [...groups.entries()]
    .sort(([, a], [, b]) => b.last.getTime() - a.last.getTime())
    .slice(0, query.limit)
    .map(([fingerprint, group]) => {
      const branches = [...group.branches].sort();
      return {
        fingerprint,
        cleaned: group.cleaned,
        sample: group.sample,
        builds: group.builds.length,
        branches,
        first_seen: group.first.toISOString(),
        last_seen: group.last.toISOString(),
        on_base: seenOnBase(branches, defaultRefs),
        build_ids: group.builds.slice(0, BUILDS_LINKED),
      };
    });
  return { errors };
}

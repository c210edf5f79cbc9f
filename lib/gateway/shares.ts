import crypto from "node:crypto";
import { getBuildsConfig } from "../builds/config";
import { assertCanActOnBuild } from "../builds/permissions";
import { branchLabel, nameUrl, refLabel } from "../builds/preview-names";
import { listLiveFirstRefs } from "../builds/repository";
import { getDb } from "../db";
import { conflict, notFound } from "../http/problem";
import { type PublicUser, publicNameOf } from "../users/roles";
import { SHARE_DEFAULT_SECONDS, type ShareScope } from "./schemas";

/**
 * Share links of a build's preview: whoever holds the link opens that preview through the gateway, whatever its
 * preview access, until the link expires or is revoked. A link follows the branch (scope `branch`, the default
 * for a build of a branch): `<scheme>://<branch's name>/__gateway/share/<secret>`, which opens the newest live
 * build of the build's first repository at that ref, across pushes and rebuilds, as a reviewer expects of a
 * link to "the preview of feature/x". Or it stays on the build (scope `build`, the default for a build of a
 * commit): `<scheme>://<build_id>.<domain>/__gateway/share/<secret>`. Only the secret's SHA-256 is stored, so the
 * link is shown once, when it is made. Opening it sets the gateway's cookie for that name (lib/gateway/access.ts), which
 * names the share: revoking the share (deleting its row) closes the preview to its holders within the gateway's
 * one-second cache, and an expired share no longer admits anyone.
 */

export interface ShareView {
  id: string;
  build_id: string;
  scope: ShareScope;
  created_at: string;
  expires_at: string;
  created_by: string;
}

const hashOf = (secret: string) => crypto.createHash("sha256").update(secret).digest("hex");

async function buildOrThrow(buildId: string) {
  const build = await getDb().build.findUnique({
    where: { id: buildId },
    select: { id: true, createdById: true, status: true, repositories: { where: { position: 0 } } },
  });
  if (!build) throw notFound(`There is no build ${buildId}.`);
  return build;
}

/** A ref that names a commit rather than a branch: a link to it has nothing to follow. */
const COMMIT_REF = /^[0-9a-f]{7,40}$/i;

export async function createShare(
  user: PublicUser,
  buildId: string,
  expiresInSeconds = SHARE_DEFAULT_SECONDS,
  requestedScope?: ShareScope,
): Promise<ShareView & { url: string }> {
  const gateway = getBuildsConfig().gateway;
  const build = await buildOrThrow(buildId);
  assertCanActOnBuild(user, build);
  if (!gateway)
    throw conflict("This service has no gateway (gateway: in the builds configuration): a preview cannot be shared.");
  if (["failed", "canceled", "expired", "destroyed", "destroying"].includes(build.status))
    throw conflict(`Build ${buildId} is ${build.status}: it has no preview to share.`);
  const [first] = build.repositories;
  const scope = requestedScope ?? (first && !COMMIT_REF.test(first.ref) ? "branch" : "build");
  if (scope === "branch" && !first) throw conflict(`Build ${buildId} has no repository: it has no branch to follow.`);
  const label =
    scope === "branch"
      ? branchLabel(first.alias, first.ref, (await listLiveFirstRefs()).get(first.alias) ?? [])
      : buildId;
  const secret = crypto.randomBytes(32).toString("base64url");
  const row = await getDb().previewShare.create({
    data: {
      id: crypto.randomBytes(8).toString("hex"),
      buildId,
      secretHash: hashOf(secret),
      expiresAt: new Date(Date.now() + expiresInSeconds * 1000),
      createdById: user.id,
      createdBy: publicNameOf(user),
      scope,
      alias: scope === "branch" ? first.alias : null,
      ref: scope === "branch" ? first.ref : null,
    },
  });
  return {
    ...viewOf(row),
    url: `${nameUrl(gateway, `${label}.${gateway.domain}`).replace(/\/$/, "")}/__gateway/share/${secret}`,
  };
}

/**
 * Whether a share may be opened at the name `label`: a link of a build at the build's own name; one that follows a
 * branch at the branch's names, its hashed one or its readable one.
 */
export async function shareOpensAt(
  share: { buildId: string; scope: string; alias: string | null; ref: string | null },
  label: string,
): Promise<boolean> {
  if (share.scope !== "branch" || share.alias === null || share.ref === null) return label === share.buildId;
  if (label === refLabel(share.alias, share.ref)) return true;
  const live = (await listLiveFirstRefs()).get(share.alias) ?? [];
  return label === branchLabel(share.alias, share.ref, live);
}

export async function listShares(user: PublicUser, buildId: string): Promise<ShareView[]> {
  assertCanActOnBuild(user, await buildOrThrow(buildId));
  const rows = await getDb().previewShare.findMany({
    where: { buildId, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
  return rows.map(viewOf);
}

export async function revokeShare(user: PublicUser, buildId: string, shareId: string): Promise<void> {
  assertCanActOnBuild(user, await buildOrThrow(buildId));
  const { count } = await getDb().previewShare.deleteMany({ where: { id: shareId, buildId } });
  if (count === 0) throw notFound(`Build ${buildId} has no share ${shareId}.`);
}

/** The share a link's secret stands for, if it is still live. */
export async function findShareBySecret(secret: string) {
  const row = await getDb().previewShare.findUnique({ where: { secretHash: hashOf(secret) } });
  return row && row.expiresAt.getTime() > Date.now() ? row : null;
}

/** The share behind a gateway cookie, if it is still live (asked at most once a second per visitor by nginx). */
export async function findLiveShare(shareId: string) {
  const row = await getDb().previewShare.findUnique({
    where: { id: shareId },
    select: { buildId: true, expiresAt: true, scope: true, alias: true, ref: true },
  });
  return row && row.expiresAt.getTime() > Date.now() ? row : null;
}

function viewOf(row: {
  id: string;
  buildId: string;
  scope: string;
  createdAt: Date;
  expiresAt: Date;
  createdBy: string;
}): ShareView {
  return {
    id: row.id,
    build_id: row.buildId,
    scope: row.scope === "branch" ? "branch" : "build",
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    created_by: row.createdBy,
  };
}

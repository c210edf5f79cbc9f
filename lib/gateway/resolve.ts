import net from "node:net";
import { type GatewayConfig, getBuildsConfig } from "../builds/config";
import { aliasPart, branchLabel, readHost, refLabel } from "../builds/preview-names";
import { ENDED_STATUSES } from "../builds/repository";
import type { BuildStatus } from "../builds/status";
import { queryAll } from "../db/hot-sql";
import { type Credentials, checkAccess } from "./access";
import { type GatewayMessage, say } from "./messages";

/**
 * What the gateway (nginx, lib/gateway/nginx-config.ts) does with a request for a Host: proxy it to the
 * `ip:port` of the build's preview, on the host that runs it, or show a page saying why not. Asked once a second
 * at most per Host (nginx keeps each answer 1 s), so a new preview, or a branch's name moved to a newer build, is
 * reached within 2 s, without any reload of nginx.
 *
 * The upstream is built from the database only: the build's port, and the preview address its host registered
 * (Instance.previewAddress, from that host's preview_address). Nothing of the request ever becomes an address.
 *
 * A build's preview may be private (lib/gateway/access.ts): then every verdict about it, a 200 as much as a
 * sleeping build's 503, is given only to a visitor it admits; anyone else gets 401, and the page route sends a
 * browser to sign in. Nothing about a private build, not even that it sleeps, reaches an unadmitted visitor, and
 * such a visit never wakes it.
 */
export type Verdict =
  | { status: 200; upstream: string; buildId: string }
  | { status: 400 | 404; detail: string; message: GatewayMessage }
  | {
      status: 401;
      detail: string;
      message: GatewayMessage;
      buildId: string;
      /** The name's label under the domain, which the visitor's passes are signed for. */
      label: string;
      /** The visitor sent a gateway cookie that does not hold (expired, revoked, for another name): clear it. */
      badCookie: boolean;
    }
  | { status: 410; detail: string; message: GatewayMessage; buildId: string }
  | {
      status: 503;
      detail: string;
      message: GatewayMessage;
      buildId: string;
      retryAfterSeconds: number;
      /** Set for a sleeping build: the host that would wake it (a visit does, lib/gateway/wake-on-visit.ts). */
      asleep?: { host: string | null };
    };

interface BuildRow {
  id: string;
  status: BuildStatus;
  port: number | null;
  runtimeHandle: string | null;
  host: string | null;
  previewAddress: string | null;
  /** The build's first repository and its ref: the build's preview has its preview_access, unless chosen. */
  alias: string | null;
  ref: string | null;
  /** The build's own choice of preview access (lib/builds/preview-access.ts); null: its repository's. */
  previewAccess: string | null;
}

const BUILD_BY_ID = `SELECT b."id", b."status", b."port", b."runtimeHandle", b."host", b."previewAccess", i."previewAddress", r."alias", r."ref"
  FROM "Build" b LEFT JOIN "Instance" i ON i."name" = b."host"
  LEFT JOIN "BuildRepository" r ON r."buildId" = b."id" AND r."position" = 0 WHERE b."id" = ?`;
// A name leads to the newest of its builds; builds are purged retention_days after they end, so the list is short.
const BUILDS_BY_FIRST_REPOSITORY = `SELECT b."id", b."status", b."port", b."runtimeHandle", b."host", b."previewAccess", i."previewAddress", r."alias", r."ref"
  FROM "BuildRepository" r JOIN "Build" b ON b."id" = r."buildId" LEFT JOIN "Instance" i ON i."name" = b."host"
  WHERE r."alias" = ? AND r."position" = 0 ORDER BY b."seq" DESC LIMIT 500`;

// A bundle's name leads to the newest build of its branch; `ref` is that branch, as the name is made of it.
const BUILDS_OF_BUNDLE = `SELECT b."id", b."status", b."port", b."runtimeHandle", b."host", i."previewAddress", b."branch" AS "ref",
  (SELECT r."alias" FROM "BuildRepository" r WHERE r."buildId" = b."id" AND r."position" = 0) AS "alias"
  FROM "Build" b LEFT JOIN "Instance" i ON i."name" = b."host"
  WHERE b."bundle" = ? ORDER BY b."seq" DESC LIMIT 500`;

/** Statuses whose preview is still to come (messages' gateway.inProgress says each). */
const IN_PROGRESS: readonly BuildStatus[] = ["queued", "checking_out", "installing", "testing", "starting"];

/** The gateway's verdict on a Host header for this visitor, with this instance's builds configuration. */
export async function resolveHost(
  host: string,
  credentials: Credentials = {},
  gateway = getBuildsConfig().gateway,
): Promise<Verdict> {
  const found = await findBuild(host, gateway);
  if (!("row" in found)) return found;
  const verdict = verdictOf(found.row);
  const { id, alias, ref, previewAccess } = found.row;
  const access = await checkAccess({ buildId: id, alias, ref, previewAccess }, found.label, credentials);
  if (access.admitted) return verdict;
  return {
    status: 401,
    buildId: found.row.id,
    label: found.label,
    detail: access.detail,
    message: say("private", { id: found.row.id }).message,
    badCookie: access.badCookie,
  };
}

async function findBuild(
  host: string,
  gateway: GatewayConfig | undefined,
): Promise<{ row: BuildRow; label: string } | (Verdict & { status: 400 | 404 })> {
  if (!gateway) return { status: 404, ...say("noGateway") };
  const request = readHost(gateway, host);
  switch (request.kind) {
    case "invalid":
      return { status: 400, detail: request.reason, message: say("badHost").message };
    case "unknown":
      return { status: 404, ...noPreview(gateway, request.label) };
    case "build": {
      const [row] = await queryAll<BuildRow>(BUILD_BY_ID, [request.buildId]);
      return row ? { row, label: request.label } : { status: 404, ...say("noBuild", { id: request.buildId }) };
    }
    case "ref": {
      const config = getBuildsConfig();
      const repository = config.repositories.find((candidate) => aliasPart(candidate.alias) === request.aliasLabel);
      const bundle = config.bundles.find((candidate) => aliasPart(candidate.name) === request.aliasLabel);
      if (!repository && !bundle) return { status: 404, ...noPreview(gateway, request.label) };
      const rows = repository
        ? namedBy(
            repository.alias,
            request.label,
            await queryAll<BuildRow>(BUILDS_BY_FIRST_REPOSITORY, [repository.alias]),
          )
        : namedBy(
            bundle!.name,
            request.label,
            (await queryAll<BuildRow>(BUILDS_OF_BUNDLE, [bundle!.name])).filter((row) => row.ref != null),
          );
      // The newest build that serves its preview; else the newest live one (being built, asleep); else the newest.
      const chosen = rows.find((row) => verdictOf(row).status === 200) ?? rows.find(isLive) ?? rows[0];
      return chosen ? { row: chosen, label: request.label } : { status: 404, ...noPreview(gateway, request.label) };
    }
  }
}

/**
 * The builds among a repository's (newest first) that a ref name leads to: those of the ref whose hashed label it
 * is, which always holds, else of the one ref whose readable label it is (lib/builds/preview-names.ts).
 */
function namedBy(alias: string, label: string, rows: BuildRow[]): BuildRow[] {
  const hashed = rows.filter((row) => refLabel(alias, row.ref!) === label);
  if (hashed.length > 0) return hashed;
  const live = liveRefsOf(rows);
  return rows.filter((row) => branchLabel(alias, row.ref!, live) === label);
}

const isLive = (row: BuildRow) => !ENDED_STATUSES.includes(row.status) && row.status !== "destroying";

function liveRefsOf(rows: BuildRow[]): Set<string> {
  return new Set(rows.filter(isLive).map((row) => row.ref!));
}

/** The visitor's credentials as the gateway passes them to the app (nginx-config.ts). */
export function credentialsOf(request: Request): Credentials {
  return { cookie: request.headers.get("x-gateway-cookie"), bypass: request.headers.get("x-gateway-bypass") };
}

function noPreview(gateway: GatewayConfig, label: string) {
  return say("noPreview", { name: `${label ? `${label}.` : ""}${gateway.domain}` });
}

function verdictOf(row: BuildRow): Verdict {
  const buildId = row.id;
  if (IN_PROGRESS.includes(row.status))
    return {
      status: 503,
      buildId,
      ...say("inProgress", { id: buildId, state: row.status }),
      retryAfterSeconds: 5,
    };
  if (row.status === "sleeping")
    return {
      status: 503,
      buildId,
      ...say("asleep", { id: buildId }),
      retryAfterSeconds: 30,
      asleep: { host: row.host },
    };
  if (row.status !== "running" || row.port === null || row.runtimeHandle === null)
    return {
      status: 410,
      buildId,
      ...say("gone", { id: buildId, state: row.status }),
    };
  const address = row.previewAddress;
  if (address === null || net.isIP(address) === 0)
    return {
      status: 503,
      buildId,
      ...say("noAddress", { id: buildId, host: row.host ?? "none" }),
      retryAfterSeconds: 30,
    };
  return { status: 200, buildId, upstream: `${net.isIPv6(address) ? `[${address}]` : address}:${row.port}` };
}

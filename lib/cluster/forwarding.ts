import { requireSession } from "../auth/guard";
import { findSessionUser } from "../auth/revocations";
import { queryOne } from "../db/hot-sql";
import { clientAddress } from "../http/client-address";
import { serviceUnavailable, unauthorized } from "../http/problem";
import { getEnv } from "../server/env";
import { type PublicUser, withEffectiveRole } from "../users/roles";
import { databaseNow, type LostHost, lostAfterMs } from "./instances";
import { type PeerIdentity, peerAddressee, signPeerRequest, verifyPeerRequest } from "./peer-auth";

/**
 * A build's logs live on the disk of the instance that ran it (its `host`), and its runtime (processes, a
 * Compose project) on that machine: reading the logs, following them live, and the actions that touch the
 * runtime (cancel, sleep, wake, DELETE) are served there. Any other instance forwards such a request to the
 * host's INSTANCE_URL, read from the Instance table (which only instances write: never an address from the
 * request), signed (lib/cluster/peer-auth.ts) and carrying the user this instance verified. The answer is passed
 * back as it comes, a live log's events included, unbuffered. A host that does not answer gives a 503 naming it.
 * A lost host (its heartbeat older than INSTANCE_LOST_AFTER_SECONDS: killed, powered off, cut off) is not tried
 * at all, since a machine that is off may leave a connection hanging for minutes: 503 naming it and its last
 * heartbeat, unless the caller knows what to do without it (DELETE: lib/builds/actions/destroy.ts destroyBuildOfLostHost).
 *
 * What lives in the database (the build's view, extend, rebuild) is served by any instance and never forwarded.
 * A single instance (lib/topology) forwards nothing.
 */

/** Who asked, as this instance knows it: directly, or through the instance that forwarded the request. */
export interface Caller {
  /** The instance that forwarded the request here, or null when the client asked this instance directly. */
  forwardedBy: string | null;
  /** The client's address (the one the forwarding instance saw, for a forwarded request). */
  client: string;
}

export interface UserCaller extends Caller {
  user: PublicUser;
  identity: PeerIdentity;
}

/** The caller of a public read (a log): its address, and the instance that forwarded it if any. */
export async function readerOf(request: Request): Promise<Caller> {
  const peer = await verifyPeerRequest(request);
  if (peer) return { forwardedBy: peer.from, client: peer.client };
  return { forwardedBy: null, client: clientAddress(request.headers) };
}

/**
 * The user behind a request that changes a build: from its credentials (requireSession: 401 without), or, for a
 * request forwarded by another instance, the user that instance verified, checked again against the database
 * (signed out, removed or deactivated meanwhile: 401).
 */
export async function requireCaller(request: Request): Promise<UserCaller> {
  const peer = await verifyPeerRequest(request);
  if (!peer) {
    const session = await requireSession(request);
    return {
      user: session.user,
      identity: { userId: session.user.id, sid: session.sid },
      forwardedBy: null,
      client: clientAddress(request.headers),
    };
  }
  if (!peer.identity) throw unauthorized(`The request forwarded by ${peer.from} names no user.`);
  const { revoked, user } = await findSessionUser(peer.identity.sid, peer.identity.userId);
  if (revoked) throw unauthorized("The token's session was signed out.");
  if (!user) throw unauthorized("The token's user no longer exists.");
  if (!user.isActive) throw unauthorized("The token's user is inactive.");
  return { user: withEffectiveRole(user), identity: peer.identity, forwardedBy: peer.from, client: peer.client };
}

/** The request headers a forwarded request keeps: what the handlers read. */
const FORWARDED_REQUEST_HEADERS = ["accept", "last-event-id"];

/** The answer's headers passed back; hop-by-hop ones (Connection, Transfer-Encoding) never are. */
const FORWARDED_RESPONSE_HEADERS = [
  "content-type",
  "content-length",
  "content-disposition",
  "cache-control",
  "retry-after",
  "www-authenticate",
  "location",
  "x-accel-buffering",
  "x-content-type-options",
];

export type { LostHost };

/** How long the host may take to start answering (a cancel waits for the stage's processes to end). */
const HEADERS_TIMEOUT_MS = 120_000;

/**
 * The host's answer when the build runs on another instance; null when this instance serves the request itself
 * (a queued build with no host yet, a build of this instance, or a request another instance forwarded here: never
 * forwarded twice).
 */
export async function forwardToBuildHost(
  request: Request,
  buildId: string,
  caller: Caller & { identity?: PeerIdentity },
  options: { whenHostLost?: (host: LostHost) => Promise<Response> } = {},
): Promise<Response | null> {
  if (caller.forwardedBy !== null) return null;
  const build = await queryOne<{ host: string | null }>(`SELECT "host" FROM "Build" WHERE "id" = ?`, [buildId]);
  const self = getEnv().INSTANCE_NAME;
  if (!build?.host || build.host === self) return null;
  const host = build.host;
  const instance = await queryOne<{ url: string | null; heartbeatAt: Date | string; processId: string }>(
    `SELECT "url", "heartbeatAt", "processId" FROM "Instance" WHERE "name" = ?`,
    [host],
  );
  if (instance) {
    const lastHeartbeat = new Date(instance.heartbeatAt);
    if ((await databaseNow()).getTime() - lastHeartbeat.getTime() > lostAfterMs()) {
      if (options.whenHostLost) return options.whenHostLost({ name: host, lastHeartbeat });
      throw serviceUnavailable(
        `Build ${buildId} is hosted by ${host}, which is unreachable: its last heartbeat was at ${lastHeartbeat.toISOString()}. ` +
          `Its logs and runtime are on that host and can be reached only when it comes back.`,
        30,
      );
    }
  }
  const origin = peerOrigin(instance?.url ?? null);
  if (!instance || !origin) {
    const why = !instance
      ? "is not a registered instance"
      : instance.url
        ? "has an invalid INSTANCE_URL"
        : "has no INSTANCE_URL";
    throw serviceUnavailable(
      `Build ${buildId} is hosted by ${host}, which ${why}: its logs and runtime can be reached only through it.`,
    );
  }

  const url = new URL(request.url);
  const pathAndQuery = url.pathname + url.search;
  const headers = new Headers(
    signPeerRequest(
      request.method,
      pathAndQuery,
      self,
      peerAddressee(host, instance.processId),
      caller.identity ?? null,
      caller.client,
    ),
  );
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  // The client going away ends the forwarded request (and the host's stream); so does a host that never answers.
  const abort = new AbortController();
  const onClientGone = () => abort.abort(request.signal.reason);
  request.signal.addEventListener("abort", onClientGone, { once: true });
  const timer = setTimeout(
    () => abort.abort(new Error(`no answer within ${HEADERS_TIMEOUT_MS / 1000} s`)),
    HEADERS_TIMEOUT_MS,
  );
  let answer: Response;
  try {
    answer = await fetch(new URL(pathAndQuery, origin), {
      method: request.method,
      headers,
      redirect: "manual",
      signal: abort.signal,
    });
  } catch (error) {
    request.signal.removeEventListener("abort", onClientGone);
    throw serviceUnavailable(
      `Build ${buildId} is hosted by ${host} (${origin}), which does not answer: ${reasonOf(error)}.`,
      30,
    );
  } finally {
    clearTimeout(timer);
  }
  const passed = new Headers({ "x-build-host": host });
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = answer.headers.get(name);
    if (value !== null) passed.set(name, value);
  }
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: passed });
}

/**
 * A POST of `path` to another instance, at the INSTANCE_URL it registered, signed as forwarded requests are and
 * carrying the client it is sent for; null when that instance registered no address. The answer's body is left to
 * the caller.
 */
export async function postToInstance(
  name: string,
  path: string,
  client: string,
  timeoutMs: number,
): Promise<Response | null> {
  const instance = await queryOne<{ url: string | null; processId: string }>(
    `SELECT "url", "processId" FROM "Instance" WHERE "name" = ?`,
    [name],
  );
  if (!instance?.url) return null;
  return fetch(new URL(path, instance.url), {
    method: "POST",
    headers: signPeerRequest(
      "POST",
      path,
      getEnv().INSTANCE_NAME,
      peerAddressee(name, instance.processId),
      null,
      client,
    ),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** The origin of a peer's INSTANCE_URL as stored, or null unless it is a plain http(s) origin. */
export function peerOrigin(stored: string | null): string | null {
  if (!stored || !URL.canParse(stored)) return null;
  const url = new URL(stored);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== ""))
    return null;
  return url.origin;
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

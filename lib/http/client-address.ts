import crypto from "node:crypto";
import http from "node:http";
import net from "node:net";
import { getEnv, normalizeAddress } from "../server/env";
import { processWide } from "../server/process-wide";
import { trackRequestInFlight } from "./requests-in-flight";

/**
 * The client's address, for throttling. Next.js gives route handlers no access to the socket, and the
 * `X-Forwarded-For` it adds is kept when a client sent its own (`??=` in Next's base server), so neither can be
 * trusted. Instead, `installSocketAddressStamp()` (called from instrumentation.ts when the server starts) wraps
 * `http.Server#emit` and writes the socket's address into a header of every incoming request, replacing
 * whatever a client sent under that name. The value carries a random per-process nonce, so a request that
 * arrived before the stamp was installed (the first ones during start-up) cannot pass a forged address: it
 * counts as "unknown".
 *
 * The same wrapper stamps when the request was received (performance.now()), which POST /builds uses to share a
 * repository fetch among the requests of a burst (lib/builds/git/mirrors.ts syncMirror): by the time the server's
 * handler gets to a request, it may have waited behind others. And it counts the requests being answered
 * (./requests-in-flight.ts), which the build executor gives way to.
 */
const HEADER = "x-runbot-socket-address";
const RECEIVED_AT_HEADER = "x-runbot-received-at";
/** Whether the request as received named a client of its own (X-Forwarded-For, Forwarded, X-Real-IP): a proxy's. */
const FORWARDED_HEADER = "x-runbot-forwarded";
const FORWARDING = ["x-forwarded-for", "forwarded", "x-real-ip"];
const state = processWide<{ socketAddressNonce?: string }>("socketAddressNonce", () => ({}));

export const UNKNOWN_ADDRESS = "unknown";

export function installSocketAddressStamp(): void {
  if (state.socketAddressNonce) return;
  const nonce = crypto.randomBytes(16).toString("hex");
  state.socketAddressNonce = nonce;
  const emit = http.Server.prototype.emit;
  // Every event of the server passes through here: its arguments are passed on as they came, not copied.
  http.Server.prototype.emit = function (
    this: http.Server,
    event: string | symbol,
    request?: unknown,
    response?: unknown,
  ) {
    if (event === "request") {
      const incoming = request as http.IncomingMessage;
      incoming.headers[HEADER] = `${nonce} ${incoming.socket?.remoteAddress ?? UNKNOWN_ADDRESS}`;
      incoming.headers[RECEIVED_AT_HEADER] = `${nonce} ${performance.now()}`;
      incoming.headers[FORWARDED_HEADER] =
        `${nonce} ${FORWARDING.some((name) => incoming.headers[name] !== undefined) ? "yes" : "no"}`;
      trackRequestInFlight(incoming, response as http.ServerResponse);
    }
    // biome-ignore lint/complexity/noArguments: the events' arguments, whatever their number, without a copy
    return emit.apply(this, arguments as unknown as Parameters<typeof emit>);
  } as typeof emit;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/**
 * When the server received a request, as a performance.now() time; now for a request without a valid stamp
 * (a client cannot make its request look older than it is).
 */
export function requestReceivedAt(headers: HeaderSource): number {
  const now = performance.now();
  const stamped = header(headers, RECEIVED_AT_HEADER);
  const nonce = state.socketAddressNonce;
  if (!nonce || !stamped?.startsWith(`${nonce} `)) return now;
  const receivedAt = Number(stamped.slice(nonce.length + 1));
  return Number.isFinite(receivedAt) && receivedAt <= now ? receivedAt : now;
}

/** Whether the request's socket peer is one of TRUSTED_PROXIES, whose X-Forwarded-* headers are believed. */
export function cameThroughTrustedProxy(headers: HeaderSource): boolean {
  const stamped = header(headers, HEADER);
  const nonce = state.socketAddressNonce;
  if (!nonce || !stamped?.startsWith(`${nonce} `)) return false;
  return getEnv().TRUSTED_PROXIES.has(normalizeAddress(stamped.slice(nonce.length + 1)));
}

/**
 * The address a request came from: the socket's peer, or, when that peer is one of TRUSTED_PROXIES, the
 * nearest address in `X-Forwarded-For` that is not itself a trusted proxy.
 */
export function clientAddress(headers: HeaderSource): string {
  const stamped = header(headers, HEADER);
  const nonce = state.socketAddressNonce;
  if (!nonce || !stamped?.startsWith(`${nonce} `)) return UNKNOWN_ADDRESS;
  const socketAddress = normalizeAddress(stamped.slice(nonce.length + 1));
  const trusted = getEnv().TRUSTED_PROXIES;
  if (!trusted.has(socketAddress)) return socketAddress;
  const forwarded = (header(headers, "x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => normalizeAddress(entry.trim()))
    .filter(Boolean);
  // Each proxy appends the address it received from, so read from the right and stop at the first stranger.
  for (let index = forwarded.length - 1; index >= 0; index--) {
    if (!trusted.has(forwarded[index])) return forwarded[index];
  }
  return forwarded[0] ?? socketAddress;
}

/**
 * Whether a request came from the previews' gateway itself: from loopback or one of TRUSTED_PROXIES, and not on
 * behalf of anyone (no forwarding header as received, which every reverse proxy in front of the app adds and the
 * gateway's own questions never carry). What only the gateway may ask (GET /gateway/resolve) asks this.
 */
export function cameFromTheGateway(headers: HeaderSource): boolean {
  const nonce = state.socketAddressNonce;
  return Boolean(nonce) && header(headers, FORWARDED_HEADER) === `${nonce} no` && cameFromLocalOrTrusted(headers);
}

/** Whether the request's socket peer is loopback or one of TRUSTED_PROXIES: a proxy of this service's own. */
export function cameFromLocalOrTrusted(headers: HeaderSource): boolean {
  const nonce = state.socketAddressNonce;
  const stamped = header(headers, HEADER);
  if (!nonce || !stamped?.startsWith(`${nonce} `)) return false;
  const socketAddress = normalizeAddress(stamped.slice(nonce.length + 1));
  return isLoopback(socketAddress) || getEnv().TRUSTED_PROXIES.has(socketAddress);
}

function isLoopback(address: string): boolean {
  return address === "::1" || (net.isIPv4(address) && address.startsWith("127."));
}

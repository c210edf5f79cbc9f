import crypto from "node:crypto";
import { unauthorized } from "../http/problem";
import { getEnv } from "../server/env";
import { processWide } from "../server/process-wide";
import { thisInstanceName, thisProcess } from "./instances";

/**
 * Instance-to-instance requests (lib/cluster/forwarding.ts): an instance that forwards a request to the build's
 * host signs it with a key derived from NEXTAUTH_SECRET, which every instance shares and no client knows. The
 * signature covers the method, the path with its query, the SHA-256 of the body, the time, a random nonce, the
 * sending instance, the receiving one (its name and the id of the process that holds it, as registered in the
 * Instance table), the user it verified (user id and session id, or none for a public read) and the client's
 * address; it holds for PEER_SIGNATURE_VALIDITY_S either side of the receiver's clock, for that receiver only, and
 * once: the receiver refuses a nonce it has already accepted. The nonces it remembers are in its memory, which a
 * restart empties; a restarted instance is another process, for which no earlier signature was made. A request
 * that carries any of these headers and fails the check is refused with 401, never served as an ordinary one.
 */
const PEER_SIGNATURE_VALIDITY_S = 30;
const VERSION = "v3";
/** A forwarded request carries no body today; a signed one may carry this much, hashed before it is served. */
const MAX_SIGNED_BODY_BYTES = 1024 * 1024;
/** The nonces accepted within the validity window that one instance keeps (see acceptNonce). */
const MAX_REMEMBERED_NONCES = 100_000;

export const PEER_HEADERS = {
  from: "x-instance-from",
  to: "x-instance-to",
  timestamp: "x-instance-timestamp",
  nonce: "x-instance-nonce",
  bodyDigest: "x-instance-body-sha256",
  user: "x-instance-user",
  client: "x-instance-client",
  signature: "x-instance-signature",
} as const;

/** Who the forwarding instance verified: the user and the session it signed in with. */
export interface PeerIdentity {
  userId: number;
  sid: string;
}

export interface PeerRequest {
  /** The instance that forwarded the request. */
  from: string;
  /** The user it verified, or null for a public read. */
  identity: PeerIdentity | null;
  /** The address of the client that asked the forwarding instance. */
  client: string;
}

let cachedKey: { secret: string; key: Buffer } | undefined;

/** The signing key: HKDF of NEXTAUTH_SECRET, so that a signature can never pass for a session token or the reverse. */
function peerKey(): Buffer {
  const secret = getEnv().NEXTAUTH_SECRET;
  if (cachedKey?.secret !== secret) {
    cachedKey = {
      secret,
      key: Buffer.from(crypto.hkdfSync("sha256", secret, "", "bcv-runbot instance-to-instance v1", 32)),
    };
  }
  return cachedKey.key;
}

interface SignedFields {
  method: string;
  pathAndQuery: string;
  bodyDigest: string;
  timestamp: string;
  nonce: string;
  from: string;
  to: string;
  user: string;
  client: string;
}

function signatureOf(fields: SignedFields): string {
  const { method, pathAndQuery, bodyDigest, timestamp, nonce, from, to, user, client } = fields;
  const text = [VERSION, method.toUpperCase(), pathAndQuery, bodyDigest, timestamp, nonce, from, to, user, client].join(
    "\n",
  );
  return `${VERSION}=${crypto.createHmac("sha256", peerKey()).update(text).digest("hex")}`;
}

/** The SHA-256 of a body, hex: what the signature holds for the body (that of no bytes for none). */
export function bodyDigestOf(body: Uint8Array = new Uint8Array()): string {
  return crypto.createHash("sha256").update(body).digest("hex");
}

function userField(identity: PeerIdentity | null): string {
  return identity ? `${identity.userId} ${identity.sid}` : "";
}

/** Who a signed request is for: an instance's name and the id of the process holding it (Instance.processId). */
export function peerAddressee(name: string, processId: string): string {
  return `${name} ${processId}`;
}

/**
 * The headers that make a forwarded request a signed one, for the instance `to` (peerAddressee); `body` is what
 * it sends (nothing, today).
 */
export function signPeerRequest(
  method: string,
  pathAndQuery: string,
  from: string,
  to: string,
  identity: PeerIdentity | null,
  client: string,
  now = Date.now(),
  body?: Uint8Array,
): Record<string, string> {
  const fields: SignedFields = {
    method,
    pathAndQuery,
    bodyDigest: bodyDigestOf(body),
    timestamp: String(Math.floor(now / 1000)),
    nonce: crypto.randomBytes(16).toString("hex"),
    from,
    to,
    user: userField(identity),
    client,
  };
  return {
    [PEER_HEADERS.from]: fields.from,
    [PEER_HEADERS.to]: fields.to,
    [PEER_HEADERS.timestamp]: fields.timestamp,
    [PEER_HEADERS.nonce]: fields.nonce,
    [PEER_HEADERS.bodyDigest]: fields.bodyDigest,
    [PEER_HEADERS.user]: fields.user,
    [PEER_HEADERS.client]: fields.client,
    [PEER_HEADERS.signature]: signatureOf(fields),
  };
}

/**
 * The nonces this instance accepted, each until its signature's validity ends. A forwarded request is sent to one
 * instance (the build's host, at its INSTANCE_URL), so a replay can only be a replay against the instance that
 * served it: a set in this process's memory is enough, nothing needs to be shared through the database. On
 * globalThis, as every route bundle must see the same set. Bounded: expired nonces go first; past
 * MAX_REMEMBERED_NONCES live ones (a flood no honest cluster makes within a minute) requests are refused rather
 * than a nonce forgotten early.
 */
const globalForNonces = processWide<{ peerNonces?: Map<string, number> }>("peerNonces", () => ({}));

function acceptNonce(nonce: string, validUntilMs: number, now: number): string | null {
  const seen = (globalForNonces.peerNonces ??= new Map());
  const until = seen.get(nonce);
  if (until !== undefined && until >= now) return "the nonce was already used: a request is served once";
  if (seen.size >= MAX_REMEMBERED_NONCES) {
    for (const [old, oldUntil] of seen) if (oldUntil < now) seen.delete(old);
    if (seen.size >= MAX_REMEMBERED_NONCES)
      return "too many instance-to-instance requests within the validity window; try again shortly";
  }
  seen.set(nonce, validUntilMs);
  return null;
}

/** Reads a signed request's body (a copy: the handler may read it too), refusing one past MAX_SIGNED_BODY_BYTES. */
async function bodyOf(request: Request): Promise<Uint8Array | null> {
  if (!request.body) return new Uint8Array();
  const reader = request.clone().body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_SIGNED_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

// One verification per request, whoever asks (the handler, then forwardToBuildHost): the nonce is spent by the first.
const verified = new WeakMap<Request, Promise<PeerRequest | null>>();

/**
 * The forwarding instance and what it verified, when the request is a signed instance-to-instance one; null when
 * it carries none of the headers; 401 when it carries some and they do not check out, or were used before.
 */
export function verifyPeerRequest(request: Request, now = Date.now()): Promise<PeerRequest | null> {
  let verification = verified.get(request);
  if (!verification) {
    verification = verifyOnce(request, now);
    verified.set(request, verification);
  }
  return verification;
}

async function verifyOnce(request: Request, now: number): Promise<PeerRequest | null> {
  const headers = request.headers;
  const present = Object.values(PEER_HEADERS).filter((name) => headers.has(name));
  if (present.length === 0) return null;
  const refuse = (why: string) => unauthorized(`The instance-to-instance request is refused: ${why}.`);
  const from = headers.get(PEER_HEADERS.from);
  const to = headers.get(PEER_HEADERS.to);
  const timestamp = headers.get(PEER_HEADERS.timestamp);
  const nonce = headers.get(PEER_HEADERS.nonce);
  const bodyDigest = headers.get(PEER_HEADERS.bodyDigest);
  const user = headers.get(PEER_HEADERS.user) ?? "";
  const client = headers.get(PEER_HEADERS.client) ?? "";
  const signature = headers.get(PEER_HEADERS.signature);
  if (!from || !to || !timestamp || !nonce || !bodyDigest || !signature) {
    const required = [
      PEER_HEADERS.from,
      PEER_HEADERS.to,
      PEER_HEADERS.timestamp,
      PEER_HEADERS.nonce,
      PEER_HEADERS.bodyDigest,
      PEER_HEADERS.signature,
    ];
    throw refuse(`${required.join(", ")} are all required`);
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw refuse("the timestamp is not a number of seconds");
  if (!/^[0-9a-f]{32}$/.test(nonce)) throw refuse("the nonce is not 16 bytes in hex");
  if (Math.abs(now / 1000 - Number(timestamp)) > PEER_SIGNATURE_VALIDITY_S) {
    throw refuse(
      `the signature is older or newer than ${PEER_SIGNATURE_VALIDITY_S} s (are the instances' clocks set?)`,
    );
  }
  const url = new URL(request.url);
  const fields = {
    method: request.method,
    pathAndQuery: url.pathname + url.search,
    bodyDigest,
    timestamp,
    nonce,
    from,
    to,
    user,
    client,
  };
  const expected = Buffer.from(signatureOf(fields));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
    throw refuse("the signature does not match");
  // Signed for this instance as it runs now: not for another, nor for the process it was before a restart.
  if (to !== peerAddressee(thisInstanceName(), thisProcess().id)) {
    throw refuse("it was signed for another instance, or for this one before it restarted");
  }
  // The digest is signed; the body must be the one it was made from.
  const body = await bodyOf(request);
  if (body === null) throw refuse(`the body is larger than ${MAX_SIGNED_BODY_BYTES} bytes`);
  if (bodyDigestOf(body) !== bodyDigest) throw refuse("the body is not the one signed");
  // Only a request that checks out spends its nonce: nobody without the key can fill the set.
  const replay = acceptNonce(nonce, (Number(timestamp) + PEER_SIGNATURE_VALIDITY_S + 1) * 1000, now);
  if (replay !== null) throw refuse(replay);
  let identity: PeerIdentity | null = null;
  if (user !== "") {
    const match = /^(\d{1,15}) (\S{1,200})$/.exec(user);
    if (!match) throw refuse("the user is malformed");
    identity = { userId: Number(match[1]), sid: match[2] };
  }
  return { from, identity, client };
}

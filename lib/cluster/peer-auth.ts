import crypto from "node:crypto";
import { getEnv } from "../env";
import { unauthorized } from "../http/problem";

/**
 * Instance-to-instance requests (lib/cluster/forwarding.ts): an instance that forwards a request to the build's
 * host signs it with a key derived from NEXTAUTH_SECRET, which every instance shares and no client knows. The
 * signature covers the method, the path with its query, the time, the sending instance, the user it verified
 * (user id and session id, or none for a public read) and the client's address; it holds for
 * PEER_SIGNATURE_VALIDITY_S either side of the receiver's clock. A request that carries any of these headers and
 * fails the check is refused with 401, never served as an ordinary one.
 */
const PEER_SIGNATURE_VALIDITY_S = 30;
const VERSION = "v1";

export const PEER_HEADERS = {
  from: "x-instance-from",
  timestamp: "x-instance-timestamp",
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
    cachedKey = { secret, key: Buffer.from(crypto.hkdfSync("sha256", secret, "", "bcv-runbot instance-to-instance v1", 32)) };
  }
  return cachedKey.key;
}

function signatureOf(method: string, pathAndQuery: string, timestamp: string, from: string, user: string, client: string): string {
  const text = [VERSION, method.toUpperCase(), pathAndQuery, timestamp, from, user, client].join("\n");
  return `${VERSION}=${crypto.createHmac("sha256", peerKey()).update(text).digest("hex")}`;
}

function userField(identity: PeerIdentity | null): string {
  return identity ? `${identity.userId} ${identity.sid}` : "";
}

/** The headers that make a forwarded request a signed one. */
export function signPeerRequest(method: string, pathAndQuery: string, from: string, identity: PeerIdentity | null, client: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const user = userField(identity);
  return {
    [PEER_HEADERS.from]: from,
    [PEER_HEADERS.timestamp]: timestamp,
    [PEER_HEADERS.user]: user,
    [PEER_HEADERS.client]: client,
    [PEER_HEADERS.signature]: signatureOf(method, pathAndQuery, timestamp, from, user, client),
  };
}

/**
 * The forwarding instance and what it verified, when the request is a signed instance-to-instance one; null when
 * it carries none of the headers; 401 when it carries some and they do not check out.
 */
export function verifyPeerRequest(request: Request, now = Date.now()): PeerRequest | null {
  const headers = request.headers;
  const present = Object.values(PEER_HEADERS).filter((name) => headers.has(name));
  if (present.length === 0) return null;
  const refuse = (why: string) => unauthorized(`The instance-to-instance request is refused: ${why}.`);
  const from = headers.get(PEER_HEADERS.from);
  const timestamp = headers.get(PEER_HEADERS.timestamp);
  const user = headers.get(PEER_HEADERS.user) ?? "";
  const client = headers.get(PEER_HEADERS.client) ?? "";
  const signature = headers.get(PEER_HEADERS.signature);
  if (!from || !timestamp || !signature) throw refuse(`${PEER_HEADERS.from}, ${PEER_HEADERS.timestamp} and ${PEER_HEADERS.signature} are all required`);
  if (!/^\d{1,12}$/.test(timestamp)) throw refuse("the timestamp is not a number of seconds");
  if (Math.abs(now / 1000 - Number(timestamp)) > PEER_SIGNATURE_VALIDITY_S) {
    throw refuse(`the signature is older or newer than ${PEER_SIGNATURE_VALIDITY_S} s (are the instances' clocks set?)`);
  }
  const url = new URL(request.url);
  const expected = Buffer.from(signatureOf(request.method, url.pathname + url.search, timestamp, from, user, client));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw refuse("the signature does not match");
  let identity: PeerIdentity | null = null;
  if (user !== "") {
    const match = /^(\d{1,15}) (\S{1,200})$/.exec(user);
    if (!match) throw refuse("the user is malformed");
    identity = { userId: Number(match[1]), sid: match[2] };
  }
  return { from, identity, client };
}

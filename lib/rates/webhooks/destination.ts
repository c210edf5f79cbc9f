import dns from "node:dns";
import type { LookupFunction } from "node:net";
import net from "node:net";

/**
 * Where webhook deliveries may go: never to this machine, a private network, a link-local address (the cloud
 * metadata service at 169.254.169.254 among them) or any other address not routed on the internet, unless
 * the operator names the host in WEBHOOK_ALLOWED_HOSTS. Checked on the addresses a name resolves to, when a
 * subscription is made and again on every delivery, at the moment of connecting (the `lookup` of the socket),
 * so a name that resolved to a public address yesterday and to 127.0.0.1 today (DNS rebinding) is refused.
 * Deliveries do not follow redirects, so a redirect cannot lead anywhere unchecked.
 */

const RANGES: [string, number, "ipv4" | "ipv6", string][] = [
  ["0.0.0.0", 8, "ipv4", "this network"],
  ["10.0.0.0", 8, "ipv4", "a private network"],
  ["100.64.0.0", 10, "ipv4", "carrier-grade NAT"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "ipv4", "a private network"],
  ["192.0.0.0", 24, "ipv4", "IETF protocol assignments"],
  ["192.0.2.0", 24, "ipv4", "documentation"],
  ["192.88.99.0", 24, "ipv4", "6to4 relay"],
  ["192.168.0.0", 16, "ipv4", "a private network"],
  ["198.18.0.0", 15, "ipv4", "benchmarking"],
  ["198.51.100.0", 24, "ipv4", "documentation"],
  ["203.0.113.0", 24, "ipv4", "documentation"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  // IPv4 inside IPv6, in the spellings a URL parser leaves ([::127.0.0.1] is ::7f00:1): whatever IPv4 address they
  // carry, none is a destination. An IPv4-mapped address (::ffff:a.b.c.d, ::ffff:7f00:1) is a socket's way of
  // writing that IPv4 address and is judged as it (unmapped below), so it has no range here.
  ["::", 96, "ipv6", "an IPv4-compatible address"],
  ["::ffff:0:0:0", 96, "ipv6", "an IPv4-translated address"],
  ["64:ff9b::", 96, "ipv6", "NAT64"],
  ["64:ff9b:1::", 48, "ipv6", "NAT64"],
  ["100::", 64, "ipv6", "discard"],
  ["2001::", 32, "ipv6", "Teredo"],
  ["2001:db8::", 32, "ipv6", "documentation"],
  ["2002::", 16, "ipv6", "6to4"],
  ["fc00::", 7, "ipv6", "a private network (unique local)"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["fec0::", 10, "ipv6", "site-local"],
  ["ff00::", 8, "ipv6", "multicast"],
];
// One list per family: Node's BlockList matches an IPv4 address against IPv6 rules as if it were IPv4-mapped, so an
// IPv6 rule covering ::ffff:0:0/96 would refuse every IPv4 address.
const blocked = { ipv4: new net.BlockList(), ipv6: new net.BlockList() };
for (const [address, prefix, family] of RANGES) blocked[family].addSubnet(address, prefix, family);

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:0:0/96) stands for, in any spelling; else the address. */
export function unmapIPv4(address: string): string {
  if (!net.isIPv6(address)) return address;
  let canonical: string;
  try {
    // The URL parser writes an IPv6 address one way: zeros compressed, lower case, the last 32 bits in hex.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address; // a zone index (fe80::1%eth0) is not a URL host; it is not a mapped address either
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return address;
  const [high, low] = [Number.parseInt(mapped[1], 16), Number.parseInt(mapped[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Why an address may not be a webhook's destination, or undefined when it may. */
export function forbiddenReason(address: string): string | undefined {
  const plain = unmapIPv4(address);
  const family = net.isIPv4(plain) ? "ipv4" : net.isIPv6(plain) ? "ipv6" : undefined;
  if (!family) return "not an IP address";
  if (!blocked[family].check(plain, family)) return undefined;
  for (const [range, prefix, rangeFamily, reason] of RANGES) {
    if (rangeFamily !== family) continue;
    const one = new net.BlockList();
    one.addSubnet(range, prefix, rangeFamily);
    if (one.check(plain, family)) return reason;
  }
  return "not a public address";
}

/** What WEBHOOK_ALLOWED_HOSTS names: IP addresses (allowed as resolved) and host names (allowed as written). */
export interface AllowedHosts {
  addresses: ReadonlySet<string>;
  names: ReadonlySet<string>;
}

export function parseAllowedHosts(list: string): AllowedHosts {
  const addresses = new Set<string>();
  const names = new Set<string>();
  for (const entry of list
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean)) {
    const bare = entry.replace(/^\[(.*)\]$/, "$1");
    if (net.isIP(bare)) addresses.add(bare);
    else names.add(entry.replace(/\.$/, ""));
  }
  return { addresses, names };
}

export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefused";
  }
}

/** Throws DestinationRefused when `address`, which `hostname` resolved to, may not be connected to. */
export function checkAddress(hostname: string, address: string, allowed: AllowedHosts): void {
  if (allowed.names.has(hostname.toLowerCase().replace(/\.$/, ""))) return;
  if (allowed.addresses.has(address.toLowerCase())) return;
  const reason = forbiddenReason(address);
  if (reason === undefined) return;
  const via = net.isIP(hostname.replace(/^\[(.*)\]$/, "$1")) ? "" : `${hostname} resolves to `;
  throw new DestinationRefused(
    `${via}${address}, ${reason}: webhooks are not sent there (WEBHOOK_ALLOWED_HOSTS may allow it)`,
  );
}

/** URL.hostname keeps an IPv6 literal's brackets; resolvers and sockets want it bare. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/** Resolves the URL's host and checks every address it resolves to: the check made when subscribing. */
export async function checkDestination(url: URL, allowed: AllowedHosts): Promise<void> {
  const host = bareHost(url);
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw new DestinationRefused(`${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  for (const { address } of addresses) checkAddress(host, address, allowed);
}

/**
 * A socket `lookup` that resolves as usual and refuses, before any connection, an address that may not be
 * connected to: what deliveries connect through, so the address checked is the address used.
 */
export function guardedLookup(allowed: AllowedHosts): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as dns.LookupAddress[];
      try {
        for (const { address } of list) checkAddress(hostname, address, allowed);
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The SSRF guard of every request avaext makes on a user's behalf (NFT token URIs, webhook URLs): every address a
 * host resolves to is checked (no loopback, private, link-local, CGNAT, unspecified or reserved address unless the
 * operator allows private ones), and the connection goes to the checked addresses only (`pinnedLookup`, so a second
 * DNS answer cannot rebind it). Callers check each redirect again, or follow none.
 */
import {lookup as dnsLookup} from "node:dns/promises";
import {BlockList, isIP, type LookupFunction} from "node:net";

// Where a user-chosen URL must not make us connect: RFC 6890 special-purpose ranges that are not the public internet.
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // CGNAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata services
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 96], // unspecified, loopback, IPv4-compatible
  // Prefixes that carry an IPv4 address (and so reach private ones through a translator or relay): NAT64's
  // well-known and local-use prefixes (RFC 6052, RFC 8215), 6to4 (RFC 3056) and Teredo (RFC 4380).
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["2002::", 16],
  ["2001::", 32],
  ["100::", 64], // discard-only (RFC 6666)
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv6");

/** Whether an address is one a user-chosen URL may not reach (IPv4-mapped IPv6 is checked as its IPv4 address). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? "ipv4" : "ipv6");
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Why a host may not be reached: `unresolved` (no DNS answer) or `forbidden` (a non-public address). */
export class TargetRefused extends Error {
  constructor(
    readonly reason: "unresolved" | "forbidden",
    message: string,
  ) {
    super(message);
    this.name = "TargetRefused";
  }
}

/** The addresses to connect to for `host`: all it resolves to, each checked; throws TargetRefused. */
export async function checkedAddresses(host: string, allowPrivate: boolean): Promise<ResolvedAddress[]> {
  const literal = host.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(literal);
  const all =
    family !== 0
      ? [{address: literal, family}]
      : await dnsLookup(host, {all: true}).catch((e: Error) => {
          throw new TargetRefused("unresolved", `${host}: ${e.message}`);
        });
  if (all.length === 0) throw new TargetRefused("unresolved", `${host}: no addresses`);
  // Any forbidden answer refuses the host: a DNS server that mixes them in is the rebinding attack.
  const bad = all.find((a) => isForbiddenAddress(a.address));
  if (bad && !allowPrivate)
    throw new TargetRefused("forbidden", `${host} resolves to ${bad.address}, a non-public address`);
  return all;
}

/**
 * A `lookup` for http.request that answers only the checked addresses, never a fresh DNS answer. Node asks with
 * {all: true} when it races them (autoSelectFamily, so `localhost` works whether ::1 or 127.0.0.1 listens), else
 * for one: both shapes are answered.
 */
export function pinnedLookup(to: readonly ResolvedAddress[]): LookupFunction {
  return ((_host: string, options: {all?: boolean}, cb: (...a: unknown[]) => void) =>
    options.all ? cb(null, to) : cb(null, to[0]!.address, to[0]!.family)) as unknown as LookupFunction;
}

/**
 * Who a request comes from, for per-client limits (rateLimit.ts): the socket's peer, or, when that peer is one of
 * `--http-trusted-proxies`, the address it puts in `X-Forwarded-For` (read right to left, past every trusted hop:
 * the first untrusted address is the client; what a client writes to the left of it is not believed). Without
 * trusted proxies the header is ignored, so a client cannot choose its own bucket.
 *
 * An IPv6 client is keyed by its /64: one subscriber's allocation holds 2^64 addresses, each free to use, so keying
 * whole addresses would give every request a bucket of its own (RFC 6177 §2, one /64 being the smallest
 * assignment). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address.
 */
import type {BlockList} from "node:net";
import {isIP, isIPv4} from "node:net";
import type {IncomingMessage} from "node:http";
import {ipRangeList} from "../util/ipRanges.js";

export class ClientAddresses {
  private readonly trusted: BlockList | null;

  /** `trusted`: addresses or CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`); throws naming a bad one. */
  constructor(trusted: readonly string[] = []) {
    this.trusted = trusted.length === 0 ? null : ipRangeList(trusted);
  }

  /** The client's address: the socket's peer, or the one a trusted proxy forwarded. */
  addressOf(req: IncomingMessage): string {
    let addr = plain(req.socket.remoteAddress ?? "");
    if (this.trusted === null || !this.isTrusted(addr)) return addr;
    const raw = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(raw) ? raw.join(",") : (raw ?? ""))
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== "");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress(hops[i]!);
      // A malformed hop ends the chain: the last address a trusted proxy vouched for is the client.
      if (hop === null) break;
      addr = hop;
      if (!this.isTrusted(hop)) break;
    }
    return addr;
  }

  /** The rate-limit key of the request's client: `ip:<IPv4>` or `ip6:<first 64 bits>::/64`. */
  keyOf(req: IncomingMessage): string {
    return clientKey(this.addressOf(req));
  }

  private isTrusted(addr: string): boolean {
    const family = isIP(addr);
    return family !== 0 && this.trusted!.check(addr, family === 4 ? "ipv4" : "ipv6");
  }
}

/** The rate-limit key of an address (see the header). */
export function clientKey(addr: string): string {
  const a = plain(addr);
  if (isIP(a) !== 6) return `ip:${a}`;
  return `ip6:${ipv6Groups(a)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** An IPv4-mapped IPv6 address as its IPv4 address; others as they are. */
function plain(addr: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  return m && isIPv4(m[1]!) ? m[1]! : addr;
}

/** An X-Forwarded-For hop (`192.0.2.1`, `192.0.2.1:443`, `2001:db8::1`, `[2001:db8::1]:443`), or null. */
function hopAddress(hop: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  const v4port = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  const a = bracketed ? bracketed[1]! : v4port ? v4port[1]! : hop;
  return isIP(a) === 0 ? null : plain(a);
}

/** The eight 16-bit groups of an IPv6 address (valid: checked by isIP), an embedded IPv4 tail included. */
function ipv6Groups(addr: string): number[] {
  let a = addr.split("%")[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (v4) {
    const [p, q, r, s] = v4[1]!.split(".").map(Number) as [number, number, number, number];
    a = a.slice(0, -v4[1]!.length) + `${((p << 8) | q).toString(16)}:${((r << 8) | s).toString(16)}`;
  }
  const [head, tail] = a.split("::") as [string, string | undefined];
  const parse = (s: string): number[] => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

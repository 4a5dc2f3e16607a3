/** Address ranges given as text (`--http-trusted-proxies`): checked when the flags are parsed, used per request. */
import {BlockList, isIP} from "node:net";

/** Addresses or CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`) as a BlockList, or throws naming the first bad one. */
export function ipRangeList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const e of entries) {
    const [ip, bits, extra] = e.split("/");
    const family = isIP(ip ?? "");
    const max = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max))
      throw new Error(`not an IP address or CIDR range: ${JSON.stringify(e)}`);
    list.addSubnet(ip!, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

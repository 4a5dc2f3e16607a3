import type {IncomingMessage} from "node:http";
import {describe, expect, it} from "vitest";
import {ClientAddresses, clientKey} from "../../../src/api/clientAddress.js";
import {ipRangeList as trustList} from "../../../src/util/ipRanges.js";

const req = (peer: string, xff?: string | string[]): IncomingMessage =>
  ({
    socket: {remoteAddress: peer},
    headers: xff === undefined ? {} : {"x-forwarded-for": xff},
  }) as unknown as IncomingMessage;

describe("client addresses for rate limits", () => {
  it("keys IPv4 by address and IPv6 by /64, an IPv4-mapped address as its IPv4", () => {
    expect(clientKey("192.0.2.7")).toBe("ip:192.0.2.7");
    expect(clientKey("::ffff:192.0.2.7")).toBe("ip:192.0.2.7");
    expect(clientKey("2001:db8:1:2::1")).toBe("ip6:2001:db8:1:2::/64");
    expect(clientKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("ip6:2001:db8:1:2::/64");
    expect(clientKey("2001:db8::")).toBe("ip6:2001:db8:0:0::/64");
    expect(clientKey("::1")).toBe("ip6:0:0:0:0::/64");
    expect(clientKey("64:ff9b::192.0.2.1")).toBe("ip6:64:ff9b:0:0::/64");
    expect(clientKey("fe80::1%eth0")).toBe("ip6:fe80:0:0:0::/64");
    expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
  });

  it("ignores X-Forwarded-For without trusted proxies, and from a peer that is not one", () => {
    expect(new ClientAddresses().addressOf(req("10.0.0.1", "203.0.113.9"))).toBe("10.0.0.1");
    expect(new ClientAddresses(["10.0.0.0/8"]).addressOf(req("192.0.2.1", "203.0.113.9"))).toBe("192.0.2.1");
  });

  it("takes the first untrusted hop from the right, past every trusted proxy", () => {
    const c = new ClientAddresses(["10.0.0.0/8", "::1"]);
    expect(c.addressOf(req("10.0.0.1", "203.0.113.9"))).toBe("203.0.113.9");
    // A client-written "1.1.1.1" left of the real client is not believed.
    expect(c.addressOf(req("10.0.0.1", "1.1.1.1, 203.0.113.9, 10.0.0.2"))).toBe("203.0.113.9");
    expect(c.addressOf(req("::1", ["1.1.1.1", "[2001:db8::5]:443"]))).toBe("2001:db8::5");
    expect(c.addressOf(req("::ffff:10.0.0.1", "203.0.113.9:5555"))).toBe("203.0.113.9");
    // A malformed hop ends the chain at the last trusted address; no header at all is the proxy itself.
    expect(c.addressOf(req("10.0.0.1", "203.0.113.9, garbage"))).toBe("10.0.0.1");
    expect(c.addressOf(req("10.0.0.1"))).toBe("10.0.0.1");
    expect(c.keyOf(req("10.0.0.1", "2001:db8:1:2:aaaa::1"))).toBe("ip6:2001:db8:1:2::/64");
  });

  it("refuses a bad trusted-proxy entry, naming it", () => {
    expect(() => trustList(["10.0.0.0/33"])).toThrow('not an IP address or CIDR range: "10.0.0.0/33"');
    expect(() => trustList(["proxy.example"])).toThrow('"proxy.example"');
    expect(() => trustList(["::1/129"])).toThrow("::1/129");
    expect(() => trustList(["10.0.0.1/8/9"])).toThrow();
    expect(trustList(["10.0.0.0/8", "fd00::/8", "127.0.0.1"]).check("10.1.2.3", "ipv4")).toBe(true);
  });
});

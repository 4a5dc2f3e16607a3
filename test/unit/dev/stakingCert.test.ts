/**
 * The dev network's staking certificates: real X.509 certificates (Node's own parser reads them and checks their
 * self-signature), the same bytes on every build, and NodeIDs derived as AvalancheGo derives them.
 */
import {createHash, X509Certificate} from "node:crypto";
import {describe, expect, it} from "vitest";
import {stakingCertificate} from "../../../src/dev/stakingCert.js";
import {cb58Encode} from "../../../src/util/cb58.js";

describe("dev staking certificates", () => {
  it("are self-signed P-256 certificates whose NodeID is ripemd160(sha256(DER))", () => {
    const c = stakingCertificate("avaext dev staker 1 tls key", 1);
    const x = new X509Certificate(Buffer.from(c.der));
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.publicKey.asymmetricKeyDetails).toMatchObject({namedCurve: "prime256v1"});
    expect(x.subject ?? "").toBe(""); // empty, as AvalancheGo's
    expect(new Date(x.validFrom).getUTCFullYear()).toBe(2000);
    // AvalancheGo's staking.MaxCertificateLen is 2 KiB.
    expect(c.der.length).toBeLessThan(2048);
    const sha = createHash("sha256").update(c.der).digest();
    const id = createHash("ripemd160").update(sha).digest();
    expect(c.nodeId).toBe(`NodeID-${cb58Encode(id)}`);
    expect(Buffer.from(c.nodeIdBytes).equals(id)).toBe(true);
  });

  it("are deterministic, and differ by seed", () => {
    const a = stakingCertificate("seed a", 1);
    expect(Buffer.from(stakingCertificate("seed a", 1).der).equals(Buffer.from(a.der))).toBe(true);
    expect(stakingCertificate("seed b", 1).nodeId).not.toBe(a.nodeId);
  });
});

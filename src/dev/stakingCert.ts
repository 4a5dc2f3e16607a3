/**
 * Deterministic staking certificates for the dev network's own nodes, and their NodeIDs as AvalancheGo derives
 * them: NodeID = ripemd160(sha256(certificate DER)) (`ids.NodeIDFromCert`, `staking/verify.go`).
 *
 * A certificate is a self-signed X.509 v3 certificate with an ECDSA P-256 key, as AvalancheGo's own
 * `staking.NewCertAndKeyBytes` makes one: empty issuer and subject, valid from 2000-01-01 for a century, signed
 * with ecdsa-with-SHA256. Its key is sha256 of a fixed text, so anyone can rebuild it (and a node could be started
 * with it); the signature is RFC 6979's deterministic ECDSA, so the DER, and so the NodeID, never change.
 * AvalancheGo's `staking.ParseCertificate` (`staking/parse.go`) reads exactly these fields.
 */
import {createHash} from "node:crypto";
import {p256} from "@noble/curves/nist.js";
import {cb58Encode} from "../util/cb58.js";
import {sha256} from "../util/sha256.js";

const ripemd160 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash("ripemd160").update(b).digest());

function der(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const body = Buffer.concat(parts);
  const n = body.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Uint8Array.from([tag, ...len, ...body]);
}

const seq = (...parts: Uint8Array[]): Uint8Array => der(0x30, ...parts);
const int = (n: number): Uint8Array => der(0x02, Uint8Array.of(n));
const oid = (hex: string): Uint8Array => der(0x06, Buffer.from(hex, "hex"));
const time = (tag: 0x17 | 0x18, text: string): Uint8Array => der(tag, new TextEncoder().encode(text));
const bitString = (b: Uint8Array): Uint8Array => der(0x03, Uint8Array.of(0), b);

/** 1.2.840.10045.4.3.2 ecdsa-with-SHA256, 1.2.840.10045.2.1 ecPublicKey, 1.2.840.10045.3.1.7 prime256v1. */
const ECDSA_SHA256 = seq(oid("2a8648ce3d040302"));
const EC_PUBLIC_KEY = seq(oid("2a8648ce3d0201"), oid("2a8648ce3d030107"));

export interface StakingCertificate {
  /** The certificate's DER bytes. */
  der: Uint8Array;
  /** The P-256 secret key (32 bytes). */
  secretKey: Uint8Array;
  /** `NodeID-` + CB58 of ripemd160(sha256(der)). */
  nodeId: string;
  /** The NodeID's 20 bytes. */
  nodeIdBytes: Uint8Array;
}

/** The staking certificate whose key is sha256(`seed`). */
export function stakingCertificate(seed: string, serial: number): StakingCertificate {
  const secretKey = sha256(new TextEncoder().encode(seed));
  const publicKey = p256.getPublicKey(secretKey, false);
  const tbs = seq(
    der(0xa0, int(2)), // v3
    int(serial),
    ECDSA_SHA256,
    seq(), // issuer: empty, as AvalancheGo's
    seq(time(0x17, "000101000000Z"), time(0x18, "21000101000000Z")),
    seq(), // subject
    seq(EC_PUBLIC_KEY, bitString(publicKey)),
  );
  const signature = p256.sign(tbs, secretKey, {format: "der"});
  const cert = seq(tbs, ECDSA_SHA256, bitString(signature));
  const nodeIdBytes = nodeIdOfCertificate(cert);
  return {der: cert, secretKey, nodeId: `NodeID-${cb58Encode(nodeIdBytes)}`, nodeIdBytes};
}

/** AvalancheGo's `ids.NodeIDFromCert`: ripemd160(sha256(DER)). */
export function nodeIdOfCertificate(certificateDer: Uint8Array): Uint8Array {
  return ripemd160(sha256(certificateDer));
}

// CIDR ranges for security.trustedProxies: whether a peer address lies in one. IPv4-mapped IPv6 addresses
// (::ffff:10.0.0.1, as Node reports IPv4 peers on a dual-stack socket) match IPv4 ranges.

import { BlockList, isIPv4, isIPv6 } from "node:net";

export interface Cidr {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.trim().split("/");
  if (address === undefined || extra !== undefined) return null;
  const family = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : null;
  if (family === null) return null;
  const max = family === "ipv4" ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return prefix <= max ? { address, prefix, family } : null;
}

/** A set of CIDR ranges, checked with Node's own BlockList. */
export class CidrSet {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(ranges: readonly string[]) {
    for (const text of ranges) {
      const cidr = parseCidr(text);
      if (!cidr) throw new RangeError(`not a CIDR range: ${JSON.stringify(text)}`);
      this.list.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
    this.empty = ranges.length === 0;
  }

  has(address: string | undefined): boolean {
    if (this.empty || address === undefined) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return this.list.check(mapped[1] as string, "ipv4");
    return this.list.check(address, isIPv4(address) ? "ipv4" : "ipv6");
  }
}

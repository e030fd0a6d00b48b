import { describe, expect, it } from "vitest";
import { CidrSet, parseCidr } from "../../src/core/cidr.js";

describe("CidrSet", () => {
  it("matches IPv4 ranges, also for IPv4 peers reported as IPv4-mapped IPv6", () => {
    const set = new CidrSet(["10.0.0.0/8", "192.168.1.7"]);
    expect(set.has("10.20.30.40")).toBe(true);
    expect(set.has("::ffff:10.1.2.3")).toBe(true);
    expect(set.has("192.168.1.7")).toBe(true);
    expect(set.has("192.168.1.8")).toBe(false);
    expect(set.has("11.0.0.1")).toBe(false);
    expect(set.has(undefined)).toBe(false);
  });

  it("matches IPv6 ranges", () => {
    const set = new CidrSet(["fd00::/8"]);
    expect(set.has("fd12:3456::1")).toBe(true);
    expect(set.has("fe80::1")).toBe(false);
  });

  it("trusts nobody when empty", () => {
    expect(new CidrSet([]).has("127.0.0.1")).toBe(false);
  });

  it("refuses what is not a range", () => {
    for (const bad of ["10.0.0.0/33", "10.0.0/8", "host/8", "::1/129", "1.2.3.4/8/1", "10.0.0.0/x"]) {
      expect(parseCidr(bad), bad).toBeNull();
    }
    expect(() => new CidrSet(["nope"])).toThrow(/not a CIDR/);
  });
});

// A request admitted on a lease on its own: what its settlement names (the lease, the share it gives back
// under) and the key's facts it was admitted by.

import { describe, expect, it } from "vitest";
import { KeyLease } from "../../src/billing/key-lease.js";
import { LEASE_SHARE, LeaseAdmission } from "../../src/billing/lease-admission.js";
import type { LeaseGrant } from "../../src/store/billing/lease-script.js";

const facts: LeaseGrant = {
  state: "ok",
  delta: 0,
  amount: 0,
  expired: 0,
  keyName: "k",
  logBodies: true,
  allowedModels: ["llama"],
  expiresAt: null,
  hash: "h",
  previousHash: "",
  previousUntil: 0,
};

describe("a request admitted on a lease", () => {
  it("names its lease and carries the key's facts it was admitted by, with no per-minute limits", () => {
    const lease = new KeyLease({ accountId: "a", keyId: "k" }, "lease:r:k:0", 0);
    const admission = new LeaseAdmission(lease, 300, "r.0", facts);
    expect(admission).toMatchObject({
      leaseId: "lease:r:k:0",
      hold: 300,
      marker: "r.0",
      keyName: "k",
      logBodies: true,
      allowedModels: ["llama"],
      rpm: null,
      tpm: null,
    });
  });

  it("gives back under the lease's share while the lease lives, and takes nothing back once it is given up", () => {
    const lease = new KeyLease({ accountId: "a", keyId: "k" }, "lease:r:k:0", 0);
    const admission = new LeaseAdmission(lease, 300, "r.0", facts);
    expect(admission.share).toBe(LEASE_SHARE);
    lease.live = false;
    expect(admission.share).toBe(0);
  });
});

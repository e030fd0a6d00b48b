// People's links to identity providers in Redis: saved with their next re-check, read back, their tokens
// dropped (and the re-checks with them); due re-checks claimed by one replica at a time for a lease, and
// claimable again once it has passed. An operator's leave to link is taken once, and only while it lasts.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const links = () => store.stores.providerLinks;
const link = (userId: string) => ({
  userId,
  providerId: "corp",
  subject: `sub-${userId}`,
  refresh: "v1.sealed-refresh",
  access: "v1.sealed-access",
  accessExpiresAt: 5000,
  confirmedAt: 1000,
});

describe("ProviderLinkStore", () => {
  it("saves a link with its next check, reads it back, and drops its tokens and checks", async () => {
    await links().save(link("usr_a"), 2000);
    expect(await links().get("usr_a", "corp")).toEqual(link("usr_a"));
    expect(await links().nextCheck({ userId: "usr_a", providerId: "corp" })).toBe(2000);
    await links().dropTokens({ userId: "usr_a", providerId: "corp" });
    expect(await links().get("usr_a", "corp")).toMatchObject({
      subject: "sub-usr_a",
      refresh: null,
      access: null,
    });
    expect(await links().nextCheck({ userId: "usr_a", providerId: "corp" })).toBeNull();
    expect(await links().get("usr_b", "corp")).toBeNull();
  });

  it("hands a due check to one claimer for its lease, then to another once the lease has passed", async () => {
    await links().save(link("usr_a"), 2000);
    await links().save(link("usr_b"), 9000);
    expect(await links().claimDue(1999, 60_000, 10)).toEqual([]);
    const [first, second] = await Promise.all([
      links().claimDue(2000, 60_000, 10),
      links().claimDue(2000, 60_000, 10),
    ]);
    expect([...(first ?? []), ...(second ?? [])]).toEqual([{ userId: "usr_a", providerId: "corp" }]);
    expect(await links().claimDue(61_999, 60_000, 10)).toEqual([{ userId: "usr_b", providerId: "corp" }]);
    expect(await links().claimDue(62_000, 60_000, 10)).toEqual([{ userId: "usr_a", providerId: "corp" }]);
  });

  it("takes an operator's leave to link once, and not after it ended", async () => {
    await links().allowLink("usr_a", "corp", 5000, 60_000);
    expect(await links().takeAllowance("usr_a", "corp", 4999)).toBe(true);
    expect(await links().takeAllowance("usr_a", "corp", 4999)).toBe(false);
    await links().allowLink("usr_a", "corp", 5000, 60_000);
    expect(await links().takeAllowance("usr_a", "corp", 5000)).toBe(false);
  });
});

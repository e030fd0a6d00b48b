// An account's alert settings on the suite's Redis: its own webhook (set, replaced, removed, read back with
// its secret for signing) and its low-balance mark, each change through its script and in the audit log, and
// refused for an account that does not exist.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccountWebhook } from "../../../src/store/accounts/alert-settings-store.js";
import { auditEntry } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(() => store.close());

const webhook = (url: string, events: string[] | null): AccountWebhook => ({
  url,
  secret: "whsec_0123456789abcdef",
  hint: "cdef",
  events,
  createdAt: 1_000,
});
const audit = (action: "account.webhook.set" | "account.webhook.remove" | "account.alerts.update") =>
  auditEntry(ACTOR, store.clock.now(), action, "acme", {});

describe("alert settings", () => {
  it("keep an account's webhook, replaced whole and read back with its secret and event types", async () => {
    const settings = store.stores.alertSettings;
    expect(await settings.webhook("acme")).toBeNull();
    const first = webhook("https://hooks.example/a", ["balance.low", "key.expired"]);
    expect(await settings.setWebhook("acme", first, audit("account.webhook.set"))).toBe(true);
    expect(await settings.webhook("acme")).toEqual(first);
    const every = webhook("https://hooks.example/b", null);
    await settings.setWebhook("acme", every, audit("account.webhook.set"));
    expect(await settings.webhook("acme")).toEqual(every);
  });

  it("remove the webhook, saying whether there was one", async () => {
    const settings = store.stores.alertSettings;
    await settings.setWebhook("acme", webhook("https://hooks.example/a", null), audit("account.webhook.set"));
    expect(await settings.removeWebhook("acme", audit("account.webhook.remove"))).toBe("removed");
    expect(await settings.webhook("acme")).toBeNull();
    expect(await settings.removeWebhook("acme", audit("account.webhook.remove"))).toBe("none");
  });

  it("set and clear the low-balance mark in the account record", async () => {
    const settings = store.stores.alertSettings;
    expect(await settings.setLowBalance("acme", 5_000_000, audit("account.alerts.update"))).toBe(true);
    expect((await store.accounts.get("acme"))?.lowBalance).toBe(5_000_000);
    await settings.setLowBalance("acme", null, audit("account.alerts.update"));
    expect((await store.accounts.get("acme"))?.lowBalance).toBeUndefined();
  });

  it("refuse an account that does not exist, writing nothing", async () => {
    const settings = store.stores.alertSettings;
    const before = await store.allKeys();
    expect(
      await settings.setWebhook(
        "ghost",
        webhook("https://hooks.example/a", null),
        audit("account.webhook.set"),
      ),
    ).toBe(false);
    expect(await settings.removeWebhook("ghost", audit("account.webhook.remove"))).toBe("account_not_found");
    expect(await settings.setLowBalance("ghost", 1, audit("account.alerts.update"))).toBe(false);
    expect(await store.allKeys()).toEqual(before);
  });

  it("record each change in the account's audit log", async () => {
    const settings = store.stores.alertSettings;
    await settings.setWebhook("acme", webhook("https://hooks.example/a", null), audit("account.webhook.set"));
    await settings.removeWebhook("acme", audit("account.webhook.remove"));
    await settings.setLowBalance("acme", 1, audit("account.alerts.update"));
    const actions = (await store.stores.audit.list("acme", 10)).map((entry) => entry.action);
    expect(actions).toEqual(
      expect.arrayContaining(["account.webhook.set", "account.webhook.remove", "account.alerts.update"]),
    );
  });
});

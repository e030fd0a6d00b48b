// `tunnel-gateway scim-tokens …` run in this process on the suite's Redis: a token made (its value printed
// once, only its SHA-256 kept), listed without its value, revoked; the SCIM log records both by the CLI.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key.js";
import { scimCommands } from "../../src/cli/scim-commands.js";
import { runCli, stubCliEnvironment } from "../helpers/cli.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
});
afterEach(() => {
  store.close();
});

const scim = (...args: string[]) => runCli(scimCommands, ["scim-tokens", ...args]);

describe("scim-tokens", () => {
  it("makes a token, prints its value once with the base URL, and keeps only its SHA-256", async () => {
    const run = await scim("create", "--name", "okta");
    expect(run.error).toBeNull();
    const value = /sk-tunnel-scim-[0-9a-f]{64}/.exec(run.stdout)?.[0] as string;
    expect(run.stdout).toMatch(
      /^Created SCIM token okta \(scim_[0-9a-z]{20}\)\. Its value, shown this once:\n\n {2}sk-tunnel-scim-[0-9a-f]{64}\n\nGive it to the identity provider's provisioning with the base URL http:\/\/127\.0\.0\.1:8081\/scim\/v2\.\n$/,
    );
    const [token] = await store.stores.scimTokens.list();
    expect(token).toMatchObject({ name: "okta", hash: hashApiKey(value), createdBy: "cli" });
    const dump = JSON.stringify(await store.redis.hgetall(store.redisKeys.scim().tokens));
    expect(dump).not.toContain(value);
  });

  it("lists tokens without their values and revokes one", async () => {
    const made = await scim("create", "--name", "entra", "--json");
    const { id, token } = JSON.parse(made.stdout) as { id: string; token: string };
    const listed = await scim("list", "--json");
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id,
        name: "entra",
        hint: token.slice(-4),
        created_by: "cli",
        last_used_at: null,
      }),
    ]);
    expect(listed.stdout).not.toContain(token);
    const revoked = await scim("revoke", id);
    expect(revoked.stdout).toBe(`Revoked SCIM token entra (${id}).\n`);
    expect(await store.stores.scimTokens.byHash(hashApiKey(token))).toBeNull();
    expect((await scim("list")).stdout).toBe("no SCIM tokens\n");
    const again = await scim("revoke", id);
    expect(again.error).toMatchObject({ code: "scim_token_not_found" });
    expect((await store.stores.audit.listScim(10)).map((e) => [e.action, e.actor])).toEqual([
      ["scim.token.revoke", "cli"],
      ["scim.token.create", "cli"],
    ]);
  });
});

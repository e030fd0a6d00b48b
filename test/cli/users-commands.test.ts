// `tunnel-gateway users …` run in this process on the suite's Redis: creating the first operator, members of
// an account, set-password links and passwords read from standard input (never from the command line),
// listing, disabling and enabling, resetting a password.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { usersCommands } from "../../src/cli/users-commands.js";
import { verifyPassword } from "../../src/identity/passwords.js";
import { ACTOR } from "../helpers/actor.js";
import { runCli, stubCliEnvironment, usageOf } from "../helpers/cli.js";
import { testIdentity } from "../helpers/identity.js";
import { redisSnapshot } from "../helpers/redis-snapshot.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
  vi.stubEnv("TUNNEL_SIGN_IN_LOCAL", "true");
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

const users = (...args: string[]) => runCli(usersCommands, ["users", ...args]);

/** Runs with `input` on standard input. */
async function withStdin<T>(input: string, run: () => Promise<T>): Promise<T> {
  const original = Object.getOwnPropertyDescriptor(process, "stdin") as PropertyDescriptor;
  Object.defineProperty(process, "stdin", { value: Readable.from([Buffer.from(input)]), configurable: true });
  try {
    return await run();
  } finally {
    Object.defineProperty(process, "stdin", original);
  }
}

describe("users create", () => {
  it("makes the first operator and prints a one-time link to the dashboard to set their password", async () => {
    const run = await users("create", "--email", "Root@Example.com", "--name", "Root", "--operator");
    expect(run.error).toBeNull();
    expect(run.stdout).toMatch(
      /^Created user root@example\.com \(usr_[0-9a-z]{20}\)\.\nSend root@example\.com this link to set their password \(it works once, for 24 hours\):\n\n {2}http:\/\/127\.0\.0\.1:8081\/#\/set-password\/[\w-]{43}\n$/,
    );
    const user = await store.stores.users.byEmail("root@example.com");
    expect(user).toMatchObject({ name: "Root", operatorGrants: { direct: "operator" }, passwordHash: null });
    const [entry] = await store.stores.audit.listUser(user?.id as string, 1);
    expect(entry).toMatchObject({ action: "user.create", actor: "cli", details: { operator: "operator" } });
  });

  it("reads the password from standard input with --password-stdin, and makes a member of an account", async () => {
    await store.accountService.create({ id: "acme" }, ACTOR);
    const run = await withStdin("a-long-enough-password\n", () =>
      users(
        "create",
        "--email",
        "ann@example.com",
        "--account",
        "acme",
        "--role",
        "viewer",
        "--password-stdin",
        "--json",
      ),
    );
    expect(run.error).toBeNull();
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ email: "ann@example.com", password: true, set_password_url: null });
    const user = await store.stores.users.byEmail("ann@example.com");
    expect(await verifyPassword(user?.passwordHash ?? null, "a-long-enough-password")).toBe(true);
    expect(await store.stores.users.accountGrants("acme", user?.id as string)).toEqual({ direct: "viewer" });
  });

  it("refuses a weak password, an e-mail taken, an unknown account, and a role without an account", async () => {
    const weak = await withStdin("password\n", () =>
      users("create", "--email", "w@example.com", "--password-stdin"),
    );
    expect((weak.error as { code: string }).code).toBe("weak_password");
    expect((await users("create", "--email", "x@example.com")).error).toBeNull();
    expect(((await users("create", "--email", "X@example.com")).error as { code: string }).code).toBe(
      "user_exists",
    );
    const ghost = await users("create", "--email", "g@example.com", "--account", "ghost", "--role", "owner");
    expect((ghost.error as { code: string }).code).toBe("account_not_found");
    expect(usageOf(await users("create", "--email", "y@example.com", "--role", "owner")).message).toMatch(
      /--account and --role go together/,
    );
    expect(
      usageOf(await users("create", "--email", "z@example.com", "--operator", "--operator-viewer")).code,
    ).toBe("commander.conflictingOption");
  });
});

describe("a refused users create writes nothing", () => {
  const codeOf = (run: { error: unknown }) => (run.error as { code?: string } | null)?.code;

  it("refuses a weak --password-stdin before anything is written: no user, no operator grant, no audit entry, and a retry is not user_exists", async () => {
    await store.accountService.create({ id: "acme" }, ACTOR);
    await users("create", "--email", "someone@corp.example");
    const before = await redisSnapshot(store.redis, store.prefix);
    const weak = await withStdin("qwerty123456\n", () =>
      users("create", "--email", "x@corp.example", "--operator", "--password-stdin"),
    );
    expect(codeOf(weak)).toBe("weak_password");
    expect(await redisSnapshot(store.redis, store.prefix)).toEqual(before);

    const retry = await withStdin("a-long-enough-password\n", () =>
      users("create", "--email", "x@corp.example", "--operator", "--password-stdin"),
    );
    expect(retry.error).toBeNull();
    const user = await store.stores.users.byEmail("x@corp.example");
    expect(user).toMatchObject({ operatorGrants: { direct: "operator" } });
    expect(await verifyPassword(user?.passwordHash ?? null, "a-long-enough-password")).toBe(true);
  });

  it.each([
    [
      "a weak password with a membership",
      ["--account", "acme", "--role", "owner", "--password-stdin"],
      "weak_password",
      "password\n",
    ],
    ["an e-mail another user has", ["--operator"], "user_exists", null, "Someone@corp.example"],
    ["an account that does not exist", ["--account", "ghost", "--role", "viewer"], "account_not_found", null],
    ["a malformed e-mail", ["--operator"], "invalid_request", null, "not-an-email"],
    ["a name too long", ["--name", "n".repeat(500)], "invalid_request", null],
    [
      "a role that is not an account role",
      ["--account", "acme", "--role", "admin"],
      "commander.invalidArgument",
      null,
    ],
  ])(
    "refuses %s and leaves Redis exactly as it was",
    async (_what, args, code, stdin, email = "new@corp.example") => {
      await store.accountService.create({ id: "acme" }, ACTOR);
      await users("create", "--email", "someone@corp.example");
      const before = await redisSnapshot(store.redis, store.prefix);
      const run = () => users("create", "--email", email as string, ...(args as string[]));
      const result = stdin === null ? await run() : await withStdin(stdin as string, run);
      expect(codeOf(result)).toBe(code);
      expect(await redisSnapshot(store.redis, store.prefix)).toEqual(before);
    },
  );
});

describe("users list, disable, enable, reset-password", () => {
  it("lists users, disables and enables one by e-mail, and prints a new set-password link", async () => {
    await users("create", "--email", "bob@example.com", "--name", "Bob");
    const listed = await users("list");
    expect(listed.stdout).toMatch(
      /^id\s+email\s+name\s+status\s+operator\s+signs in with\nusr_\w+\s+bob@example\.com\s+Bob\s+active\s+-\s+-\n$/,
    );
    expect((await users("disable", "bob@example.com")).stdout).toMatch(/^Disabled user bob@example\.com/);
    expect((await store.stores.users.byEmail("bob@example.com"))?.status).toBe("disabled");
    expect((await users("enable", "BOB@example.com")).stdout).toMatch(/^Enabled user bob@example\.com/);
    const reset = await users("reset-password", "bob@example.com", "--json");
    expect(JSON.parse(reset.stdout).set_password_url).toMatch(/\/#\/set-password\/[\w-]{43}$/);
    expect(((await users("disable", "nobody@example.com")).error as { code: string }).code).toBe(
      "user_not_found",
    );
  });
});

describe("users unlock and users link", () => {
  const directory = temporaryDirectories("tunnel-users-cli-");

  it("unlocks a person locked out by failed passwords, in their audit log as the CLI's doing", async () => {
    await withStdin("a-long-enough-password\n", () =>
      users("create", "--email", "lo@example.com", "--password-stdin"),
    );
    const identity = testIdentity(store);
    for (let i = 0; i < 10; i++)
      await identity.passwords.signIn("lo@example.com", "wrong-password", "192.0.2.1").catch(() => {});
    await expect(
      identity.passwords.signIn("lo@example.com", "a-long-enough-password", "192.0.2.2"),
    ).rejects.toMatchObject({
      code: "too_many_attempts",
    });
    expect((await users("unlock", "lo@example.com")).stdout).toBe("Unlocked sign-in for lo@example.com.\n");
    const user = await identity.passwords.signIn("lo@example.com", "a-long-enough-password", "192.0.2.2");
    const [unlock] = await store.stores.audit.listUser(user.id, 1);
    expect(unlock).toMatchObject({ action: "user.unlock", actor: "cli", details: { reason: "operator" } });
    expect((await users("unlock", "lo@example.com")).stdout).toBe(
      "lo@example.com was not locked out; nothing to do.\n",
    );
  });

  it("lets a person's next sign-in with a provider link to them, and refuses a provider not configured", async () => {
    const file = join(directory(), "config.yaml");
    writeFileSync(
      file,
      "signIn:\n  providers:\n    - { id: corp, name: Corp, issuer: 'http://127.0.0.1:9', clientId: gateway }\n",
    );
    vi.stubEnv("TUNNEL_CONFIG", file);
    await users("create", "--email", "li@example.com");
    const run = await users("link", "li@example.com", "--provider", "corp", "--json");
    expect(run.error).toBeNull();
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ email: "li@example.com", provider: "corp" });
    expect(Date.parse(printed.until)).toBeGreaterThan(Date.now());
    const user = await store.stores.users.byEmail("li@example.com");
    expect(await store.stores.providerLinks.takeAllowance(user?.id as string, "corp", Date.now())).toBe(true);
    const unknown = await users("link", "li@example.com", "--provider", "nope");
    expect((unknown.error as { code: string }).code).toBe("provider_not_found");
  });
});

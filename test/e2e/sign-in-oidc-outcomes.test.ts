// Every way a sign-in through the identity provider fails, one at a time, against the suite's real OpenID
// provider: a state not ours, an ID token whose nonce is not ours, the provider refusing, a person no rule
// gives a role (createUnmatched: false), an e-mail the provider does not vouch for, a disabled person. Each
// is one sign_in.oidc line at warn naming the reason, one count under that outcome, no session — and no line
// holds a token, a code, a state, a nonce, a PKCE verifier, a cookie or the client secret.

import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { Browser, type Hop } from "../helpers/browser.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { freePort } from "../helpers/http.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";

const SECRET = "outcomes-client-secret-0123456789";
let idp: TestIdentityProvider;
let t: TestGateway;
let admin: string;
/** Every secret the flows handed around, looked for in every line at the end. */
const secrets = new Set<string>([SECRET]);

beforeAll(async () => {
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  idp = await startIdentityProvider({
    clients: [gatewayClient(admin, SECRET, ["corp"])],
    refreshTokens: true,
  });
  t = await startTestGateway({
    env: { CORP_SECRET: SECRET },
    config: {
      admin: { port },
      signIn: {
        providers: [
          providerSettings(
            idp,
            { id: "corp", name: "Corporate login", secretEnv: "CORP_SECRET" },
            { createUnmatched: false, rules: [{ groups: ["team-acme"], account: "acme", role: "member" }] },
          ),
        ],
      },
    } as never,
  });
  await t.store.accountService.create({ id: "acme", name: "Acme" }, ACTOR);
});

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

function callbackOf(hops: Hop[]): Hop {
  const hop = hops.find((h) => h.url.startsWith(`${admin}/auth/oidc/corp/callback`));
  if (!hop) throw new Error(`the browser never came back: ${hops.map((h) => h.url).join(" -> ")}`);
  return hop;
}

/** Remembers every secret in a hop's URL (state, code) and in the browser's cookies. */
function collect(hops: Hop[], browser: Browser): void {
  for (const hop of hops) {
    const url = new URL(hop.url);
    for (const name of ["state", "code", "nonce", "code_challenge"]) {
      const value = url.searchParams.get(name);
      if (value) secrets.add(value);
    }
  }
  for (const value of browser.cookies(admin).values()) secrets.add(value);
}

/** Starts a sign-in; returns the provider's login page and the browser. */
async function begin(browser = new Browser()) {
  const start = await browser.navigate(`${admin}/auth/oidc/corp/start`);
  await start.res.text();
  collect(start.hops, browser);
  return { browser, loginPage: start.hops.at(-1)?.url as string, hops: start.hops };
}

async function signIn(login: string) {
  const { browser, loginPage, hops } = await begin();
  const done = await browser.submit(loginPage, { login });
  collect(done.hops, browser);
  return { browser, callback: callbackOf([...hops, ...done.hops]) };
}

const metric = async (outcome: string) => {
  const scrape = await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
  const found = new RegExp(
    `^tunnel_gateway_identity_events_total\\{event="sign_in.oidc",outcome="${outcome}"\\} (\\d+)$`,
    "m",
  ).exec(scrape);
  return Number(found?.[1] ?? Number.NaN);
};

/** Runs `fail` and checks it made exactly one sign_in.oidc line, at warn, of `outcome`, and one count. */
async function expectRefusal(
  outcome: string,
  fail: () => Promise<{ browser: Browser; location: string | null | undefined }>,
) {
  const before = await metric(outcome);
  const from = t.logs.length;
  const { browser, location } = await fail();
  const lines = t.logs.slice(from).filter((line) => line.event === "sign_in.oidc");
  expect(lines).toEqual([expect.objectContaining({ level: 40, outcome, provider: "corp" })]);
  expect(await metric(outcome)).toBe(before + 1);
  expect(browser.cookies(admin).has("tg_session")).toBe(false);
  expect(location).toMatch(new RegExp(`^${admin}/#/sign-in\\?error=`));
  return lines[0] as Record<string, unknown>;
}

describe("a sign-in through the provider that fails", () => {
  it("state_mismatch: a callback with a state this gateway never gave", async () => {
    const line = await expectRefusal("state_mismatch", async () => {
      const { browser } = await begin();
      const forged = "forged-state-0123456789abcdef";
      secrets.add(forged);
      const { hop } = await browser.request(`${admin}/auth/oidc/corp/callback?code=abc&state=${forged}`);
      return { browser, location: hop.location };
    });
    expect(JSON.stringify(line)).not.toContain("forged-state");
  });

  it("state_mismatch: the same callback replayed after it signed in", async () => {
    idp.setPerson("ruth", { email: "ruth@corp.example", email_verified: true, groups: ["team-acme"] });
    const { browser, callback } = await signIn("ruth");
    expect(callback.location).toBe(`${admin}/`);
    await expectRefusal("state_mismatch", async () => {
      const replay = new Browser();
      const { hop } = await replay.request(callback.url);
      return { browser: replay, location: hop.location };
    });
    collect([], browser);
  });

  it("nonce_mismatch: an ID token whose nonce is not the one this sign-in sent", async () => {
    idp.setPerson("nina", { email: "nina@corp.example", email_verified: true, groups: ["team-acme"] });
    await expectRefusal("nonce_mismatch", async () => {
      const { browser, loginPage, hops } = await begin();
      const state = new URL(hops[0]?.location as string).searchParams.get("state") as string;
      const hash = createHash("sha256").update(state).digest("hex");
      const [key] = (await t.store.allKeys()).filter((k) => k.endsWith(`oidc-state:${hash}`));
      const pending = JSON.parse((await t.store.redis.get(key as string)) as string);
      secrets.add(pending.nonce).add(pending.verifier);
      await t.store.redis.set(key as string, JSON.stringify({ ...pending, nonce: "not-ours" }), "PX", 60_000);
      const done = await browser.submit(loginPage, { login: "nina" });
      collect(done.hops, browser);
      return { browser, location: callbackOf(done.hops).location };
    });
  });

  it("provider_error: the provider sends the browser back with an error, named in the line", async () => {
    const line = await expectRefusal("provider_error", async () => {
      const { browser, hops } = await begin();
      const state = new URL(hops[0]?.location as string).searchParams.get("state") as string;
      const { hop } = await browser.request(
        `${admin}/auth/oidc/corp/callback?error=access_denied&state=${encodeURIComponent(state)}`,
      );
      return { browser, location: hop.location };
    });
    expect(line.detail).toBe("access_denied");
  });

  it("no_rule: a person the provider knows but no rule gives a role gets no user", async () => {
    idp.setPerson("stranger", {
      email: "stranger@elsewhere.example",
      email_verified: true,
      groups: ["sales"],
    });
    await expectRefusal("no_rule", async () => {
      const { browser, callback } = await signIn("stranger");
      return { browser, location: callback.location };
    });
    expect(await t.store.stores.users.byEmail("stranger@elsewhere.example")).toBeNull();
  });

  it("unverified_email: an e-mail of an existing person the provider does not say is verified", async () => {
    await t.store.stores.users.create(
      {
        id: `usr_${"e".repeat(20)}`,
        name: "Eve",
        email: "eve@corp.example",
        createdAt: 1,
        operatorGrants: {},
      },
      "{}",
    );
    idp.setPerson("eve-at-provider", {
      email: "eve@corp.example",
      email_verified: false,
      groups: ["team-acme"],
    });
    const line = await expectRefusal("unverified_email", async () => {
      const { browser, callback } = await signIn("eve-at-provider");
      return { browser, location: callback.location };
    });
    expect(line.user).toBe(`usr_${"e".repeat(20)}`);
    expect(await t.store.stores.users.bySubject("corp", "eve-at-provider")).toBeNull();
  });

  it("user_disabled: a person an operator disabled", async () => {
    idp.setPerson("dora", { email: "dora@corp.example", email_verified: true, groups: ["team-acme"] });
    const first = await signIn("dora");
    expect(first.callback.location).toBe(`${admin}/`);
    const dora = await t.store.stores.users.byEmail("dora@corp.example");
    await t.store.stores.users.update(dora?.id as string, { status: "disabled" }, "");
    const line = await expectRefusal("user_disabled", async () => {
      const { browser, callback } = await signIn("dora");
      return { browser, location: callback.location };
    });
    expect(line.user).toBe(dora?.id);
  });

  it("never put a token, a code, a state, a nonce, a verifier, a cookie or the client secret in a line", () => {
    for (const token of idp.issuedTokens()) secrets.add(token);
    expect(secrets.size).toBeGreaterThan(20);
    const text = t.logs.map((line) => JSON.stringify(line)).join("\n");
    for (const secret of secrets) expect(text, `a line holds ${secret.slice(0, 6)}…`).not.toContain(secret);
  });
});

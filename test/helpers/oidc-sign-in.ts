// Signing in through a real test provider with an identity layer of the tests' own, no admin listener: the
// identity layer begins the sign-in, a Browser goes through the provider's login form, and the provider's
// redirect lands on a listener that only answers 200; the callback's query is then completed by the identity
// layer, as the admin listener's callback route would. For the tests of what comes after a sign-in (re-checks).

import type { Identity } from "../../src/identity/identity.js";
import type { ProviderTokens } from "../../src/identity/oidc-recheck.js";
import type { Stores } from "../../src/store/stores.js";
import { Browser } from "./browser.js";
import { type Listening, listen } from "./http.js";

/** The listener the provider redirects to; its URL is the origin a test provider's client must register. */
export function callbackListener(): Promise<Listening> {
  return listen((_req, res) => res.end("ok"));
}

/**
 * Signs `login` in with provider `providerId` through `callback`; the person, and their tokens in plain text (opened from
 * the provider link `stores` keeps).
 */
export async function signInThroughProvider(
  identity: Identity,
  stores: Pick<Stores, "providerLinks">,
  providerId: string,
  login: string,
  callback: Pick<Listening, "url">,
): Promise<{ user: Awaited<ReturnType<Identity["oidc"]["complete"]>>["user"]; tokens: ProviderTokens }> {
  const binding = "browser-binding-secret";
  const authorization = await identity.oidc.begin(providerId, "/", binding, callback.url);
  const browser = new Browser();
  const start = await browser.navigate(authorization.href);
  const form = start.hops.at(-1) as { url: string };
  await start.res.text();
  const done = await browser.submit(form.url, { login });
  await done.res.text();
  const landed = new URL((done.hops.at(-1) as { url: string }).url);
  const { user } = await identity.oidc.complete(providerId, landed.searchParams, binding, callback.url, null);
  const link = await stores.providerLinks.get(user.id, providerId);
  const cipher = identity.oidc.cipher(providerId);
  const open = (sealed: string | null | undefined) => (cipher && sealed ? cipher.open(sealed) : null);
  return {
    user,
    tokens: {
      refresh: open(link?.refresh),
      access: open(link?.access),
      accessExpiresAt: link?.accessExpiresAt ?? null,
    },
  };
}

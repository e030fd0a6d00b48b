// The identity providers' redirect flow, as browser navigations: /start sends the browser to the provider
// (with a sign-in cookie binding the sign-in to this browser), /callback comes back from it, starts the
// session and sends the browser on to where it was going. Failures send the browser to the dashboard's
// sign-in page with the error's code in the fragment (#/sign-in?error=<code>), never a bare JSON page.

import type { Logger } from "pino";
import { z } from "zod";
import { asGatewayError, GatewayError } from "../core/errors.js";
import { newSecret } from "../identity/secrets.js";
import { cookie } from "./cookies.js";
import * as L from "./link-schemas.js";
import { safeReturnTo } from "./return-to.js";
import type { Call, Redirect, Route } from "./route.js";
import { startSession } from "./sign-in-session.js";

const PROVIDER = "/auth/oidc/{providerId}";
const SIGN_IN_COOKIE_SECONDS = 600;

const Redirected = z.null().meta({ description: "302 Found: Location says where the browser goes next" });

function failed(call: Call, error: unknown, logger?: Logger): Redirect {
  const failure = asGatewayError(error);
  if (failure.status >= 500 && failure.code !== "identity_provider_unavailable")
    logger?.error({ err: failure.cause ?? failure }, "sign-in with an identity provider failed");
  const query = new URLSearchParams({ error: failure.code, provider: call.params.providerId ?? "" });
  return { location: `${call.http.origin}/#/sign-in?${query}` };
}

export const OIDC_ROUTES: readonly Route[] = [
  {
    method: "POST",
    path: `${PROVIDER}/link`,
    operationId: "linkProvider",
    summary:
      "Link an identity provider to the signed-in person (who signs in another way): the answer's URL sends the browser to the provider; coming back through it in this session links its identity to this person",
    action: "me.manage",
    body: L.LinkProviderBody,
    status: 200,
    response: L.LinkStarted,
    async handle(call) {
      const { oidc } = call.services.identity;
      const { credential } = call.principal;
      if (credential.kind !== "session" || !call.principal.user)
        throw new GatewayError("forbidden", "Only a signed-in person may link an identity provider.");
      const names = call.http.cookieNames;
      const binding = newSecret();
      const input = call.body as z.infer<typeof L.LinkProviderBody>;
      const url = await oidc.begin(
        call.params.providerId as string,
        safeReturnTo(input.return_to ?? "/#/me"),
        binding,
        call.http.origin,
        { userId: call.principal.user.id, session: credential.session.hash },
      );
      call.http.setCookie(cookie(names.signIn, binding, names.secure, SIGN_IN_COOKIE_SECONDS));
      return { url: url.href };
    },
  },
  {
    method: "GET",
    path: `${PROVIDER}/start`,
    operationId: "startProviderSignIn",
    summary:
      "Start signing in with an identity provider: 302 to the provider (code flow with PKCE); return_to, a path of the dashboard, is where the browser comes back to",
    action: "public",
    query: z.strictObject({
      return_to: z
        .string()
        .optional()
        .meta({ description: 'A path of the dashboard, such as "/#/accounts/acme"' }),
    }),
    status: 302,
    response: Redirected,
    async handle(call) {
      const { oidc } = call.services.identity;
      const names = call.http.cookieNames;
      const binding = newSecret();
      try {
        const url = await oidc.begin(
          call.params.providerId as string,
          safeReturnTo(call.query.return_to),
          binding,
          call.http.origin,
        );
        call.http.setCookie(cookie(names.signIn, binding, names.secure, SIGN_IN_COOKIE_SECONDS));
        return { location: url.href };
      } catch (error) {
        if (asGatewayError(error).code === "provider_not_found") throw error;
        return failed(call, error);
      }
    },
  },
  {
    method: "GET",
    path: `${PROVIDER}/callback`,
    operationId: "finishProviderSignIn",
    summary:
      "Where the identity provider sends the browser back (the redirect URL to register with it): starts the session and 302s to return_to",
    action: "public",
    query: z.looseObject({
      code: z.string().optional(),
      state: z.string().optional(),
      error: z.string().optional(),
      error_description: z.string().optional(),
    }),
    status: 302,
    response: Redirected,
    async handle(call) {
      const { oidc } = call.services.identity;
      const names = call.http.cookieNames;
      call.http.setCookie(cookie(names.signIn, "", names.secure, 0));
      try {
        const query = new URLSearchParams(
          Object.entries(call.query).filter(
            (entry): entry is [string, string] => typeof entry[1] === "string",
          ),
        );
        const { credential } = call.principal;
        const { user, provider, returnTo } = await oidc.complete(
          call.params.providerId as string,
          query,
          call.http.cookies.get(names.signIn),
          call.http.origin,
          credential.kind === "session" ? credential.session.hash : null,
        );
        await startSession(call, user, { via: "oidc", provider });
        return { location: `${call.http.origin}${returnTo}` };
      } catch (error) {
        if (asGatewayError(error).code === "provider_not_found") throw error;
        return failed(call, error);
      }
    },
  },
];

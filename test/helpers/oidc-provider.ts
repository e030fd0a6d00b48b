// A real OpenID provider for the tests: oidc-provider (a certified OpenID Connect implementation) on a free
// loopback port, with one or more confidential clients and people whose claims (e-mail, name, groups) a test
// sets and changes between sign-ins. Its login page is a tiny form of our own (/interaction/<uid>): a
// `login` field naming the person, submitted by a test over HTTP (test/helpers/browser.ts) or typed into by
// Chromium; consent is granted without asking. By default, as most providers do, scope claims (groups among
// them) are in the userinfo answer and not in the ID token. With `refreshTokens`, it gives refresh tokens
// (as Keycloak does, or Entra and Okta with offline_access); a person removed is unknown to it from then on
// (their refresh and access tokens refused), and a provider set down answers 503 to everything.

import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { type Configuration } from "oidc-provider";

export interface Person {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface TestIdentityProvider {
  /** The issuer URL, e.g. http://127.0.0.1:41234 */
  issuer: string;
  /** Sets (or replaces) the claims of the person with this subject. */
  setPerson(subject: string, claims: Person): void;
  /** Deletes the person: the provider no longer knows them (their tokens are refused from then on). */
  removePerson(subject: string): void;
  /** Down: every request is answered 503, as by a provider that is unavailable; up again with false. */
  setDown(down: boolean): void;
  /** How many times the token endpoint was asked with a refresh token. */
  refreshes(): number;
  /** The values of every access and refresh token it issued (opaque tokens: their value is their jti). */
  issuedTokens(): string[];
  /** Answers to the login form: how many times each subject signed in. */
  logins: string[];
  /** How many times the userinfo endpoint was asked. */
  userinfoRequests(): number;
  close(): Promise<void>;
}

export interface ProviderOptions {
  clients: TestClient[];
  /** Put scope claims (groups, e-mail) in the ID token too (oidc-provider's conformIdTokenClaims off). */
  claimsInIdToken?: boolean;
  /** Give refresh tokens at every sign-in. */
  refreshTokens?: boolean;
}

/** The scopes every scenario's gateway asks a provider for. */
export const SIGN_IN_SCOPES = ["openid", "email", "profile", "groups"];

/**
 * The gateway's client at a test provider, as every sign-in scenario registers it: `clientId` ("gateway"
 * unless told), `secret`, and a callback at the admin listener `admin` for each id the gateway knows the
 * provider by.
 */
export function gatewayClient(
  admin: string,
  secret: string,
  providerIds: readonly string[],
  clientId = "gateway",
): TestClient {
  return {
    clientId,
    clientSecret: secret,
    redirectUris: providerIds.map((id) => `${admin}/auth/oidc/${id}/callback`),
  };
}

/**
 * A provider's entry in the gateway's signIn.providers, as the scenarios write it: `idp`'s issuer, the client
 * "gateway" (unless told) whose secret is in the environment variable `secretEnv`, SIGN_IN_SCOPES, and the
 * scenario's own settings (`extra`: rules, domains, ...).
 */
export function providerSettings(
  idp: Pick<TestIdentityProvider, "issuer">,
  entry: { id: string; name: string; secretEnv: string; clientId?: string },
  extra: object = {},
) {
  return {
    id: entry.id,
    name: entry.name,
    issuer: idp.issuer,
    clientId: entry.clientId ?? "gateway",
    clientSecretEnv: entry.secretEnv,
    scopes: SIGN_IN_SCOPES,
    ...extra,
  };
}

const LOGIN_PAGE = (uid: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test provider: sign in</title></head>
<body><main><h1>Test provider</h1>
<form method="post" action="/interaction/${uid}">
<label>Login <input name="login" autocomplete="username"></label>
<button type="submit">Sign in</button>
</form></main></body></html>`;

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

export async function startIdentityProvider(options: ProviderOptions): Promise<TestIdentityProvider> {
  const people = new Map<string, Person>();
  const logins: string[] = [];
  let userinfo = 0;
  let refreshes = 0;
  let down = false;
  const server: Server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const configuration: Configuration = {
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      grant_types: options.refreshTokens ? ["authorization_code", "refresh_token"] : ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    })),
    async findAccount(_ctx, sub) {
      const person = people.get(sub);
      if (!person) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...people.get(sub) }) };
    },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups"],
    },
    scopes: ["openid", "email", "profile", "groups"],
    conformIdTokenClaims: options.claimsInIdToken !== true,
    issueRefreshToken: async (_ctx, client) =>
      options.refreshTokens === true && client.grantTypeAllowed("refresh_token"),
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["test-provider-cookie-key"] },
    // Keys and lifetimes of our own, so that oidc-provider does not warn about its development defaults.
    jwks: {
      keys: [
        {
          ...(await exportJWK((await generateKeyPair("RS256", { extractable: true })).privateKey)),
          alg: "RS256",
          use: "sig",
        },
      ],
    },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      Grant: 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 86_400,
      Session: 3600,
    },
    // Quiet: oidc-provider would print its development warnings on every start.
    renderError(ctx, out) {
      ctx.type = "application/json";
      ctx.body = out;
    },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  const issued: string[] = [];
  provider.on("access_token.saved", (token) => void issued.push(token.jti));
  provider.on("refresh_token.saved", (token) => void issued.push(token.jti));
  provider.on("grant.success", (ctx) => {
    if (ctx.oidc.params?.grant_type === "refresh_token") refreshes++;
  });

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    if (prompt.name === "login") {
      if (req.method !== "POST") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE(details.uid));
        return;
      }
      const login = (await formBody(req)).get("login") ?? "";
      if (!people.has(login)) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE(details.uid));
        return;
      }
      logins.push(login);
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: login } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    // Consent: granted at once for everything asked.
    const grant = new provider.Grant({
      accountId: session?.accountId as string,
      clientId: params.client_id as string,
    });
    grant.addOIDCScope(String(params.scope));
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
  }

  server.on("request", (req, res) => {
    if (down) {
      res.writeHead(503, { "content-type": "text/plain" }).end("unavailable");
      return;
    }
    if (req.url?.startsWith("/interaction/")) {
      interaction(req, res).catch((error: unknown) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
      });
      return;
    }
    // Browsers ask every origin for its icon: answered, so that a browser test sees no failed request.
    if (req.url === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    if (req.url?.startsWith("/me")) userinfo++;
    callback(req, res);
  });

  return {
    issuer,
    setPerson: (subject, claims) => void people.set(subject, claims),
    removePerson: (subject) => void people.delete(subject),
    setDown: (value) => {
      down = value;
    },
    refreshes: () => refreshes,
    issuedTokens: () => [...issued],
    logins,
    userinfoRequests: () => userinfo,
    async close() {
      server.closeAllConnections();
      server.close();
      if (server.listening) await once(server, "close");
    },
  };
}

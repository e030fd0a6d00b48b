// Hash routes (#/accounts/acme/keys/key_…): the page is one file, and the fragment never reaches the
// server. Only ids go into a route, never a token — but for the one-time links the gateway itself sends
// (#/invite/<token>, #/set-password/<token>), whose token is in the fragment so that it reaches no server's log;
// their pages take it out of the address once used. The sign-in page reads the provider flow's failure
// (#/sign-in?error=<code>&provider=<id>).

export type Route =
  | { name: "home" }
  | { name: "operator" }
  | { name: "account"; accountId: string }
  | { name: "newKey"; accountId: string }
  | { name: "key"; accountId: string; keyId: string }
  | { name: "members"; accountId: string }
  | { name: "myAccount" }
  | { name: "people" }
  | { name: "signIn"; error?: string; provider?: string }
  | { name: "invite"; token: string | null }
  | { name: "setPassword"; token: string | null }
  | { name: "notFound" };

/** The pages anyone may open without being signed in. */
export const PUBLIC_ROUTES: ReadonlySet<Route["name"]> = new Set(["signIn", "invite", "setPassword"]);

function decode(segment: string): string | null {
  try {
    const text = decodeURIComponent(segment);
    return text === "" ? null : text;
  } catch {
    return null;
  }
}

function signInRoute(search: string): Route {
  const query = new URLSearchParams(search);
  const error = query.get("error");
  const provider = query.get("provider");
  return {
    name: "signIn",
    ...(error !== null && error !== "" && { error }),
    ...(provider !== null && provider !== "" && { provider }),
  };
}

export function parseRoute(hash: string): Route {
  const fragment = hash.replace(/^#/, "");
  const at = fragment.indexOf("?");
  const path = (at === -1 ? fragment : fragment.slice(0, at)).replace(/^\/+|\/+$/g, "");
  if (path === "") return { name: "home" };
  const parts = path.split("/").map(decode);
  if (parts.some((part) => part === null)) return { name: "notFound" };
  const [first, accountId, third, keyId] = parts as string[];
  if (parts.length === 1 && first === "sign-in") return signInRoute(at === -1 ? "" : fragment.slice(at + 1));
  if (parts.length === 1 && first === "me") return { name: "myAccount" };
  if (parts.length === 1 && first === "people") return { name: "people" };
  if (first === "invite" && parts.length <= 2) return { name: "invite", token: accountId ?? null };
  if (first === "set-password" && parts.length <= 2) return { name: "setPassword", token: accountId ?? null };
  if (parts.length === 1 && first === "accounts") return { name: "operator" };
  if (first !== "accounts" || accountId === undefined) return { name: "notFound" };
  if (parts.length === 2) return { name: "account", accountId };
  if (parts.length === 3 && third === "new-key") return { name: "newKey", accountId };
  if (parts.length === 3 && third === "members") return { name: "members", accountId };
  if (parts.length === 4 && third === "keys" && keyId !== undefined) return { name: "key", accountId, keyId };
  return { name: "notFound" };
}

export function href(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.name) {
    case "home":
    case "notFound":
      return "#/";
    case "operator":
      return "#/accounts";
    case "account":
      return `#/accounts/${enc(route.accountId)}`;
    case "newKey":
      return `#/accounts/${enc(route.accountId)}/new-key`;
    case "key":
      return `#/accounts/${enc(route.accountId)}/keys/${enc(route.keyId)}`;
    case "members":
      return `#/accounts/${enc(route.accountId)}/members`;
    case "myAccount":
      return "#/me";
    case "people":
      return "#/people";
    case "signIn": {
      const query = new URLSearchParams({
        ...(route.error && { error: route.error }),
        ...(route.provider && { provider: route.provider }),
      }).toString();
      return query === "" ? "#/sign-in" : `#/sign-in?${query}`;
    }
    case "invite":
      return route.token === null ? "#/invite" : `#/invite/${enc(route.token)}`;
    case "setPassword":
      return route.token === null ? "#/set-password" : `#/set-password/${enc(route.token)}`;
  }
}

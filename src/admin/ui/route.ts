// Hash routes (#/accounts/acme/keys/key_…): the page is one file, and the fragment never reaches the
// server. Only ids go into a route, never a token.

export type Route =
  | { name: "home" }
  | { name: "operator" }
  | { name: "account"; accountId: string }
  | { name: "newKey"; accountId: string }
  | { name: "key"; accountId: string; keyId: string }
  | { name: "notFound" };

function decode(segment: string): string | null {
  try {
    const text = decodeURIComponent(segment);
    return text === "" ? null : text;
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "").replace(/^\/+|\/+$/g, "");
  if (path === "") return { name: "home" };
  const parts = path.split("/").map(decode);
  if (parts.some((part) => part === null)) return { name: "notFound" };
  const [first, accountId, third, keyId] = parts as string[];
  if (parts.length === 1 && first === "accounts") return { name: "operator" };
  if (first !== "accounts" || accountId === undefined) return { name: "notFound" };
  if (parts.length === 2) return { name: "account", accountId };
  if (parts.length === 3 && third === "new-key") return { name: "newKey", accountId };
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
  }
}

// The dashboard's session token: kept in sessionStorage only (gone with the tab, never in a URL, a cookie or
// localStorage), read for every call to the admin API and forgotten on signing out or when it is refused.

const TOKEN_KEY = "tunnel-gateway.token";

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage disabled: there is nothing to forget.
  }
}

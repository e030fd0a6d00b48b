// An invitation waiting for its person to sign in first: its token kept in the tab's sessionStorage (never in
// a URL: a provider's return_to would carry it through the server's logs) while the person signs in —
// through a provider too, which leaves the page and comes back to #/invite — and forgotten once used.

const KEY = "tunnel-gateway.invitation";

export function pendingInvitation(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function keepInvitation(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Storage disabled: the person opens the link again after signing in.
  }
}

export function forgetInvitation(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing kept.
  }
}

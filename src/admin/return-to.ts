// Where the browser goes back after signing in: only ever a path of the dashboard itself. Anything that could
// leave it — a scheme, a host (//evil.example), a backslash (which browsers read as a slash), a control
// character — is ignored in favour of "/", so that a sign-in link can never be made to send a person, signed
// in, to another site.

const MAX_LENGTH = 2048;

export function safeReturnTo(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_LENGTH) return "/";
  if (!value.startsWith("/") || value.startsWith("//")) return "/";
  if (value.includes("\\") || /[\p{Cc}\s]/u.test(value)) return "/";
  return value;
}

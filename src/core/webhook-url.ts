// What a webhook URL may be: https:// (or http:// with alerts.allowHttp), without credentials or a fragment,
// at most 2048 characters. URLs can carry secrets of their own (chat services put a token in the path), so
// logs and the audit log show only their origin.

export const MAX_URL_LENGTH = 2048;

/** What is wrong with a webhook URL, in the words of the error message, or null. */
export function webhookUrlProblem(url: string, allowHttp: boolean): string | null {
  const scheme = allowHttp
    ? "an http:// or https:// URL"
    : "an https:// URL (http:// needs alerts.allowHttp)";
  if (url.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  if (!URL.canParse(url)) return `must be ${scheme}`;
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && !(allowHttp && parsed.protocol === "http:")) return `must be ${scheme}`;
  if (parsed.username !== "" || parsed.password !== "") return "must not contain credentials";
  if (parsed.hash !== "") return "must not contain a fragment (#…)";
  return null;
}

/** scheme://host[:port] of a URL: what logs and the audit log say of a webhook. */
export function urlOrigin(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : "(not a URL)";
}

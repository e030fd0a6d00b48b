// The rate-limit headers of OpenAI's API, on every forwarded response of a key with per-minute limits, so
// that clients that read them (OpenAI's SDKs, LangChain's rate limiters) can pace themselves:
// x-ratelimit-limit-requests, -remaining-requests, -reset-requests, and the same for tokens. Resets are
// durations in the form OpenAI sends them, Go's: "20ms", "1s", "6m0s". AddingRateLimitHeaders is the relay
// handler (relay-handler.ts) that adds them at the response's start, composed only for a key with limits.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { LimitState } from "../../store/billing/reserve-script.js";
import { Decorator, type RelayHandler } from "./relay-handler.js";

export class AddingRateLimitHeaders extends Decorator {
  constructor(
    next: RelayHandler,
    private readonly limits: OutgoingHttpHeaders,
  ) {
    super(next);
  }

  override onResponseStart(
    status: number,
    headers: OutgoingHttpHeaders,
    upstream: IncomingHttpHeaders,
  ): void {
    const { limits } = this;
    for (const name in limits) headers[name] = limits[name];
    this.next.onResponseStart(status, headers, upstream);
  }
}

export function rateLimitHeaders(rpm: LimitState | null, tpm: LimitState | null): OutgoingHttpHeaders | null {
  if (rpm === null && tpm === null) return null;
  const headers: OutgoingHttpHeaders = {};
  if (rpm !== null) {
    headers["x-ratelimit-limit-requests"] = String(rpm.limit);
    headers["x-ratelimit-remaining-requests"] = String(rpm.remaining);
    headers["x-ratelimit-reset-requests"] = goDuration(rpm.resetMs);
  }
  if (tpm !== null) {
    headers["x-ratelimit-limit-tokens"] = String(tpm.limit);
    headers["x-ratelimit-remaining-tokens"] = String(tpm.remaining);
    headers["x-ratelimit-reset-tokens"] = goDuration(tpm.resetMs);
  }
  return headers;
}

/** A whole number of milliseconds as Go's time.Duration prints it: 0s, 20ms, 1.5s, 6m0s, 1h2m3s. */
export function goDuration(ms: number): string {
  if (ms <= 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const secondsText = `${String((ms % 60_000) / 1000)}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}

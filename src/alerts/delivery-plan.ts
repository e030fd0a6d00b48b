// The delivery policy, as pure functions of an event's delivery state: which endpoints an attempt goes to, what
// an attempt's outcome changes, when to try again. Each endpoint of an event is delivered on its own: one that
// answers is never sent the event again because another one failed. A failed attempt is retried with
// exponential backoff — firstRetry, twice that, … up to maxRetry between attempts, each delay cut by up to a
// quarter at random so that the retries to an endpoint that was down do not all arrive at once — until giveUp
// after the event happened; then that endpoint's delivery has failed.

/** How one endpoint's delivery of one event stands. */
export interface EndpointDelivery {
  /** The endpoint's id: `account`, or `op_…` for the operator's. */
  endpoint: string;
  kind: "operator" | "account";
  /** scheme://host of the URL it went to (never the path, which may hold a secret). */
  origin: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  /** The last attempt's HTTP status, or null when none came back. */
  status_code: number | null;
  /** Why the last attempt failed, or null. */
  error: string | null;
  last_attempt_at: number | null;
  /** When the next attempt is due, for a pending delivery (null: at once). */
  next_attempt_at: number | null;
  delivered_at: number | null;
}

export interface DeliveryState {
  endpoints: EndpointDelivery[];
}

export interface RetryPolicy {
  firstRetryMs: number;
  maxRetryMs: number;
  /** How long after the event the last attempt may be made. */
  giveUpMs: number;
}

/** What one attempt came to. */
export interface Attempt {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** The outcome counted in the metrics: delivered, to be retried, or failed for good. */
export type AttemptResult = "delivered" | "retried" | "failed";

export function initialState(
  targets: readonly { id: string; kind: "operator" | "account"; origin: string }[],
): DeliveryState {
  return {
    endpoints: targets.map((target) => ({
      endpoint: target.id,
      kind: target.kind,
      origin: target.origin,
      status: "pending",
      attempts: 0,
      status_code: null,
      error: null,
      last_attempt_at: null,
      next_attempt_at: null,
      delivered_at: null,
    })),
  };
}

export function parseState(json: string | null): DeliveryState | null {
  if (json === null) return null;
  const parsed = JSON.parse(json) as Partial<DeliveryState>;
  return Array.isArray(parsed.endpoints) ? { endpoints: parsed.endpoints } : null;
}

/** The deliveries an attempt at `now` should make. */
export function dueDeliveries(state: DeliveryState, now: number): EndpointDelivery[] {
  return state.endpoints.filter(
    (delivery) =>
      delivery.status === "pending" && (delivery.next_attempt_at === null || delivery.next_attempt_at <= now),
  );
}

/** The delay before attempt `attempts + 1`, after `attempts` failed ones; `random` in [0, 1). */
export function retryDelayMs(attempts: number, policy: RetryPolicy, random: number): number {
  const full = Math.min(policy.firstRetryMs * 2 ** Math.min(attempts - 1, 40), policy.maxRetryMs);
  return Math.max(1, Math.round(full * (1 - 0.25 * random)));
}

/** Records an attempt at one delivery; returns what it came to. */
export function recordAttempt(
  delivery: EndpointDelivery,
  attempt: Attempt,
  now: number,
  eventAt: number,
  policy: RetryPolicy,
  random: number,
): AttemptResult {
  delivery.attempts += 1;
  delivery.status_code = attempt.statusCode;
  delivery.error = attempt.ok ? null : attempt.error;
  delivery.last_attempt_at = now;
  if (attempt.ok) {
    delivery.status = "delivered";
    delivery.delivered_at = now;
    delivery.next_attempt_at = null;
    return "delivered";
  }
  const next = now + retryDelayMs(delivery.attempts, policy, random);
  if (next > eventAt + policy.giveUpMs) {
    delivery.status = "failed";
    delivery.next_attempt_at = null;
    return "failed";
  }
  delivery.next_attempt_at = next;
  return "retried";
}

/** Gives up a delivery whose endpoint no longer exists (removed from the configuration or the account). */
export function abandon(delivery: EndpointDelivery, now: number, reason: string): void {
  delivery.status = "failed";
  delivery.error = reason;
  delivery.last_attempt_at = now;
  delivery.next_attempt_at = null;
}

/** When the event next needs an attempt, or null when every delivery is done with. */
export function nextAttemptAt(state: DeliveryState, now: number): number | null {
  let next: number | null = null;
  for (const delivery of state.endpoints) {
    if (delivery.status !== "pending") continue;
    const at = delivery.next_attempt_at ?? now;
    next = next === null ? at : Math.min(next, at);
  }
  return next;
}

/** The event's delivery as a whole: every endpoint delivered, one still pending, or one failed for good. */
export function overallStatus(state: DeliveryState): "delivered" | "pending" | "failed" | "no_endpoints" {
  if (state.endpoints.length === 0) return "no_endpoints";
  if (state.endpoints.some((delivery) => delivery.status === "pending")) return "pending";
  if (state.endpoints.some((delivery) => delivery.status === "failed")) return "failed";
  return "delivered";
}

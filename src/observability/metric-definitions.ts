// Every Prometheus metric the gateway exports, declared as data: name, type, help, labels, buckets. Names
// follow the Prometheus conventions (base units, _total for counters, _seconds, _rubles); metrics.ts builds
// them into one registry, and docs/metrics-and-alerts.md lists the same table (a test keeps the two equal).

export const METRIC_PREFIX = "tunnel_gateway_";

export interface MetricDefinition {
  name: string;
  type: "counter" | "gauge" | "histogram";
  help: string;
  labels?: readonly string[];
  buckets?: readonly number[];
}

export const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
export const TTFB_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
export const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1];
export const REDIS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5];
/** Waits in the fair queue: from none (a request given its place at once) to queue.maxWaitMs and beyond. */
export const QUEUE_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Coarser buckets for the per-key histogram: its series count is multiplied by the number of keys. */
export const KEY_DURATION_BUCKETS = [0.1, 0.5, 1, 5, 30, 120];

const KEY_LABELS = ["account", "key_id", "key_name"] as const;

export const METRICS = {
  requests: {
    name: "requests_total",
    type: "counter",
    help: "Requests forwarded or refused by the gateway, by model and HTTP status (499: the client went away first).",
    labels: ["model", "status"],
  },
  duration: {
    name: "request_duration_seconds",
    type: "histogram",
    help: "End-to-end duration of forwarded requests, from arrival to the last byte, by model.",
    labels: ["model"],
    buckets: DURATION_BUCKETS,
  },
  ttfb: {
    name: "upstream_ttfb_seconds",
    type: "histogram",
    help: "Time from forwarding a request to the upstream's response headers, by model.",
    labels: ["model"],
    buckets: TTFB_BUCKETS,
  },
  overhead: {
    name: "overhead_seconds",
    type: "histogram",
    help: "Time the gateway adds before forwarding: authentication, reading the body, the reservation.",
    buckets: OVERHEAD_BUCKETS,
  },
  tokens: {
    name: "tokens_total",
    type: "counter",
    help: "Tokens billed, by model and kind (prompt or completion).",
    labels: ["model", "kind"],
  },
  spend: {
    name: "spend_rubles_total",
    type: "counter",
    help: "Rubles charged, by model and account.",
    labels: ["model", "account"],
  },
  estimated: {
    name: "usage_estimated_total",
    type: "counter",
    help: "Requests billed on estimated usage because the upstream reported none (or the client hung up).",
    labels: ["model"],
  },
  usageRejected: {
    name: "usage_rejected_total",
    type: "counter",
    help: "Usage reports not believed, by reason (not_a_count, completion_above_cap, prompt_above_limit, cached_above_prompt): the request was billed by estimate.",
    labels: ["reason"],
  },
  overage: {
    name: "overage_rubles_total",
    type: "counter",
    help: "What credible usage reports cost beyond their requests' reservations, by model: absorbed, unless billing.overage is charge.",
    labels: ["model"],
  },
  refusals: {
    name: "refusals_total",
    type: "counter",
    help: "Requests refused by the gateway, by error code.",
    labels: ["code"],
  },
  upstreamFailures: {
    name: "upstream_failures_total",
    type: "counter",
    help: "Upstream failures by kind: refused (connection), reset (mid-response), timeout, 5xx (status).",
    labels: ["kind"],
  },
  redisDuration: {
    name: "redis_operation_duration_seconds",
    type: "histogram",
    help: "Duration of Redis operations on the request path, by operation.",
    labels: ["operation"],
    buckets: REDIS_BUCKETS,
  },
  redisUp: {
    name: "redis_up",
    type: "gauge",
    help: "1 while the gateway's Redis connection is ready, 0 otherwise.",
  },
  settlementsPending: {
    name: "settlements_pending",
    type: "gauge",
    help: "Settlements waiting to be sent again: Redis could not be reached, or no replica has acknowledged them yet.",
  },
  settlementsFailed: {
    name: "settlements_failed_total",
    type: "counter",
    help: "Settlements Redis refused repeatedly and that were dropped; each is logged in full for reconciliation.",
  },
  scriptErrors: {
    name: "redis_script_errors_total",
    type: "counter",
    labels: ["script"],
    help: "Lua scripts Redis refused for good (a Lua error, an error the script raised, OOM, an ACL), by script; each kind is also logged at error level.",
  },
  settlementsUnreplicated: {
    name: "settlements_unreplicated_total",
    type: "counter",
    help: "Settlements Redis answered but no replica acknowledged in time (redis.settlementReplicas): each is sent again, to the promoted master after a failover.",
  },
  settlementsGivenUp: {
    name: "settlements_given_up_total",
    type: "counter",
    help: "Settlements no replica acknowledged within billing.lateSettlementSeconds: no longer sent again (a copy could charge twice past that); each counts as made by its first answer, and the books watch reports it if a failover lost that.",
  },
  settlementsReplayed: {
    name: "settlements_replayed_total",
    type: "counter",
    help: "Settlements whose first write no replica acknowledged and that were made again (a failover lost the first): charges a failover would have lost.",
  },
  booksDrift: {
    name: "books_drift_rubles",
    type: "gauge",
    labels: ["account"],
    help: "What Redis holds of this replica's charges of an account minus what it charged since it started (negative: charges missing from Redis), for accounts where a difference outlived the settlement pipeline; 0 once it is gone.",
  },
  admissions: {
    name: "admissions_total",
    type: "counter",
    labels: ["path"],
    help: "Forwarded requests by how they were admitted: lease (on the replica's admission lease, no Redis round trip before forwarding) or reserve (a reservation of their own).",
  },
  reservationsExpired: {
    name: "reservations_expired_total",
    type: "counter",
    help: "Reservations released because they expired unsettled (a replica died mid-request).",
  },
  inFlight: {
    name: "requests_in_flight",
    type: "gauge",
    help: "Forwarded requests in progress.",
  },
  keyDuration: {
    name: "key_request_duration_seconds",
    type: "histogram",
    help: 'End-to-end duration of forwarded requests per key (keys beyond metrics.maxKeySeries fold into key_id="other").',
    labels: KEY_LABELS,
    buckets: KEY_DURATION_BUCKETS,
  },
  keySpend: {
    name: "key_spend_rubles_total",
    type: "counter",
    help: 'Rubles charged per key (keys beyond metrics.maxKeySeries fold into key_id="other").',
    labels: KEY_LABELS,
  },
  keyInFlight: {
    name: "key_requests_in_flight",
    type: "gauge",
    help: "Forwarded requests in progress on this replica per key, for keys with max_parallel (sum over replicas to compare with it).",
    labels: KEY_LABELS,
  },
  keyBudget: {
    name: "key_budget_rubles",
    type: "gauge",
    help: "A key's budget per period, one series per budget window (its period), for keys that have one.",
    labels: [...KEY_LABELS, "period"],
  },
  keyBudgetRemaining: {
    name: "key_budget_remaining_rubles",
    type: "gauge",
    help: "What remains of a key's budget window in its current period (the whole budget once the period has ended).",
    labels: [...KEY_LABELS, "period"],
  },
  accountBalance: {
    name: "account_balance_rubles",
    type: "gauge",
    help: "An account's balance, as of its last settled request.",
    labels: ["account"],
  },
  alertEvents: {
    name: "alert_events_total",
    type: "counter",
    help: "Alert events by type, each counted once, by the replica that first hands it to its delivery worker.",
    labels: ["type"],
  },
  webhookDeliveries: {
    name: "webhook_deliveries_total",
    type: "counter",
    help: "Webhook delivery attempts by result: delivered, retried (failed, to be tried again), failed (given up).",
    labels: ["result"],
  },
  upstreamInFlight: {
    name: "upstream_in_flight",
    type: "gauge",
    help: "Requests holding one of the model server's places on this replica (only with upstream.maxInFlight set).",
  },
  upstreamMaxInFlight: {
    name: "upstream_max_in_flight",
    type: "gauge",
    help: "upstream.maxInFlight: the most requests the model server is given at once (by all replicas together with upstream.sharedInFlight).",
  },
  queueRequests: {
    name: "queue_requests",
    type: "gauge",
    help: 'Requests waiting in this replica\'s fair queue for a place at the model server, per account (accounts beyond metrics.maxAccountSeries fold into account="other").',
    labels: ["account"],
  },
  queueWait: {
    name: "queue_wait_seconds",
    type: "histogram",
    help: 'How long requests waited in the fair queue for a place at the model server, per account: 0 for one given its place at once, refused ones (server_busy) included (accounts beyond metrics.maxAccountSeries fold into account="other").',
    labels: ["account"],
    buckets: QUEUE_BUCKETS,
  },
  alertOldestUndelivered: {
    name: "alert_oldest_undelivered_age_seconds",
    type: "gauge",
    help: "Age of the oldest alert event not yet delivered to all its endpoints (0 when every event is).",
  },
  identityEvents: {
    name: "identity_events_total",
    type: "counter",
    help: "Identity events by event and outcome (core/identity-events.ts): sign-ins and their failures by reason, lockouts, unlocks, passwords, invitations, API tokens, sessions ended, re-checks with the identity providers, SCIM changes.",
    labels: ["event", "outcome"],
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricKey = keyof typeof METRICS;

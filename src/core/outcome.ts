// How a request ended: the words of the log line, the key's recent-requests list and the metrics.

/** How a forwarded request ended. */
export type Outcome =
  | "completed"
  | "client_aborted"
  | "upstream_unavailable"
  | "upstream_timeout"
  | "upstream_reset"
  /** Still running when the shutdown drain ended: aborted, and billed for what it had produced. */
  | "shutdown";

/**
 * How a request ended, for the record: a forwarded request's outcome; `refused` by the gateway before it was
 * forwarded; or released without a charge after its reservation, because the reservation's reply was lost
 * (`redis_unavailable`) or something failed before the request was forwarded (`internal_error`).
 */
export type RecordOutcome = Outcome | "refused" | "redis_unavailable" | "internal_error";

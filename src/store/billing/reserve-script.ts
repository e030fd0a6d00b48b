// The reserve script's call (reserve-5.lua): a forwarded request's worst case reserved on its key and its
// account — the one round trip a request makes before it is forwarded, unless its key's admission lease covers
// it — and the script's reply read into a Reservation or the Refusal it answers with. BillingStore.reserve is
// its entry point.

import type { ErrorCode } from "../../core/errors.js";
import type { KeyRef } from "../../core/key-ref.js";
import type { ModelCheck } from "../../core/model-check.js";
import type { Micros } from "../../core/money.js";
import { type CurrentPeriods, isPeriod, type Period } from "../../core/periods.js";
import { timed } from "../connection/timing.js";
import { parseModels } from "../records.js";
import { runScript } from "../scripts.js";
import { type BillingConnection, PURGE_LIMIT } from "./billing-connection.js";

export interface ReserveInput {
  reservationId: string;
  amount: Micros;
  /** The request's worst case in tokens, counted against the key's tokens-per-minute limit. */
  tokens: number;
  /** SHA-256 of the key value the request presented (a rotated-out value is refused). */
  keyHash: string;
  now: number;
  periods: CurrentPeriods;
  expiresAt: number;
  model: ModelCheck;
}

/** Where one of a key's per-minute limits stands after an admission. */
export interface LimitState {
  limit: number;
  /** Units (requests or tokens) that would be admitted now. */
  remaining: number;
  /** Milliseconds until the whole allowance is back. */
  resetMs: number;
}

export interface Reservation {
  ok: true;
  /** Reservations of the account released because they expired unsettled. */
  expired: number;
  keyName: string;
  logBodies: boolean;
  allowedModels: string[] | null;
  budget: Micros | null;
  spent: Micros;
  keyReserved: Micros;
  balance: Micros;
  accountReserved: Micros;
  /** Null for a limit the key does not have. */
  rpm: LimitState | null;
  tpm: LimitState | null;
  maxParallel: number | null;
  /** The key's requests in flight, this one included. */
  inFlight: number;
}

/** Whose budget window it is: the key's own, or its account's (shared by every key of the account). */
export type BudgetScope = "key" | "account";

export interface Refusal {
  ok: false;
  expired: number;
  code: Extract<
    ErrorCode,
    | "invalid_api_key"
    | "key_revoked"
    | "key_expired"
    | "key_rotated"
    | "key_disabled"
    | "model_not_allowed"
    | "rate_limit_exceeded"
    | "concurrency_limit_exceeded"
    | "budget_exceeded"
    | "insufficient_balance"
  >;
  allowedModels?: string[];
  /** Which per-minute limit refused the request, its value, and milliseconds until the request would fit. */
  limit?: { kind: "rpm" | "tpm"; value: number; waitMs: number };
  /** The key's max_parallel and its requests in flight, for a concurrency refusal. */
  maxParallel?: number;
  inFlight?: number;
  /** For a budget refusal, the window that refused: the key's or the account's, and its figures. */
  scope?: BudgetScope;
  budget?: Micros;
  spent?: Micros;
  /** What requests in flight hold for the refusing window's key (scope key) or account (scope account). */
  keyReserved?: Micros;
  period?: Period;
  balance?: Micros;
  accountReserved?: Micros;
}

/** Reserves a request's worst case on its key and account. */
export async function runReserve(
  { redis, keys, settings, observe }: BillingConnection,
  ref: KeyRef,
  input: ReserveInput,
): Promise<Reservation | Refusal> {
  const { accountId } = ref;
  const reply = await timed(observe, "reserve", () =>
    runScript(
      redis,
      "reserve",
      [
        keys.key(accountId, ref.keyId),
        keys.account(accountId),
        keys.reservations(accountId),
        keys.reservationRecords(accountId),
        keys.reserved(accountId),
      ],
      [
        input.now,
        input.periods.day.start,
        input.periods.week.start,
        input.periods.month.start,
        input.reservationId,
        input.amount,
        input.expiresAt,
        input.model.kind,
        input.model.kind === "named" ? input.model.model : "",
        PURGE_LIMIT,
        settings.lateSettlementSeconds * 1000,
        input.keyHash,
        input.tokens,
      ],
    ),
  );
  const code = reply[0] as string;
  const expired = Number(reply[1]);
  switch (code) {
    case "ok":
      return {
        ok: true,
        expired,
        keyName: String(reply[2]),
        logBodies: reply[3] !== "0",
        allowedModels: reply[4] ? parseModels(String(reply[4])) : null,
        budget: reply[5] === "" ? null : Number(reply[5]),
        spent: Number(reply[6]),
        keyReserved: Number(reply[7]),
        balance: Number(reply[8]),
        accountReserved: Number(reply[9]),
        rpm: limitState(reply[10], reply[11], reply[12]),
        tpm: limitState(reply[13], reply[14], reply[15]),
        maxParallel: reply[16] === "" ? null : Number(reply[16]),
        inFlight: Number(reply[17]),
      };
    case "model_not_allowed":
      return { ok: false, expired, code, allowedModels: parseModels(String(reply[2])) };
    case "budget_exceeded":
      return {
        ok: false,
        expired,
        code,
        budget: Number(reply[2]),
        spent: Number(reply[3]),
        keyReserved: Number(reply[4]),
        period: isPeriod(reply[5]) ? reply[5] : "month",
        scope: reply[6] === "account" ? "account" : "key",
      };
    case "insufficient_balance":
      return { ok: false, expired, code, balance: Number(reply[2]), accountReserved: Number(reply[3]) };
    case "rate_limit_exceeded":
      return {
        ok: false,
        expired,
        code,
        limit: {
          kind: reply[2] === "tpm" ? "tpm" : "rpm",
          value: Number(reply[3]),
          waitMs: Number(reply[4]),
        },
      };
    case "concurrency_limit_exceeded":
      return { ok: false, expired, code, maxParallel: Number(reply[2]), inFlight: Number(reply[3]) };
    case "invalid_api_key":
    case "key_revoked":
    case "key_expired":
    case "key_rotated":
    case "key_disabled":
      return { ok: false, expired, code };
    default:
      throw new Error(`reserve script answered an unknown code ${JSON.stringify(code)}`);
  }
}

/** A per-minute limit's state from the reserve script's reply, or null when the key has no such limit. */
function limitState(limit: unknown, remaining: unknown, resetMs: unknown): LimitState | null {
  if (limit === "" || limit === null || limit === undefined) return null;
  return { limit: Number(limit), remaining: Number(remaining), resetMs: Number(resetMs) };
}

// Messages for requests the reserve script refused, written so that the person reading them knows what to
// change: how much is left, what the request could have cost, and the largest max_tokens that would fit.

import { GatewayError } from "../core/errors.js";
import type { ModelCheck } from "../core/model-check.js";
import { formatRubles, type Micros } from "../core/money.js";
import type { CurrentPeriods, Period } from "../core/periods.js";
import type { ModelPrice } from "../core/price.js";
import type { Refusal } from "../store/billing/reserve-script.js";
import type { WorstCase } from "./estimate.js";

export function refusalError(
  refusal: Refusal,
  worst: WorstCase,
  price: ModelPrice,
  model: ModelCheck,
  periods: CurrentPeriods,
): GatewayError {
  switch (refusal.code) {
    case "model_not_allowed": {
      const allowed = (refusal.allowedModels ?? []).join(", ");
      return new GatewayError(
        "model_not_allowed",
        model.kind === "named"
          ? `This key may not use model "${model.model}". Allowed models: ${allowed}.`
          : `This key is limited to the models ${allowed}, and the request does not name one; set the "model" field.`,
      );
    }
    case "rate_limit_exceeded": {
      const { kind, value, waitMs } = refusal.limit ?? { kind: "rpm", value: 0, waitMs: 1000 };
      if (kind === "rpm") {
        return new GatewayError(
          "rate_limit_exceeded",
          `This key may make ${value} requests a minute and has made them; the next one fits in ${seconds(waitMs)}.`,
          { retryAfterMs: waitMs },
        );
      }
      const tokens = worst.promptTokens + worst.completionTokens;
      // A worst case above a minute's allowance is counted as the whole allowance: it waits until all is free.
      const fits =
        tokens > value
          ? `more than the whole allowance, so it waits until all of it is free, in ${seconds(waitMs)} (a lower max_tokens lets it in sooner)`
          : `which fits in ${seconds(waitMs)}`;
      return new GatewayError(
        "rate_limit_exceeded",
        `This key may use ${value} tokens a minute; this request could use up to ${tokens}, ${fits}.`,
        { retryAfterMs: waitMs },
      );
    }
    case "concurrency_limit_exceeded":
      return new GatewayError(
        "concurrency_limit_exceeded",
        `This key may have ${refusal.maxParallel} requests in flight at once and has ${refusal.inFlight}; retry when one has finished.`,
        { retryAfterMs: 1000 },
      );
    case "budget_exceeded": {
      const budget = refusal.budget ?? 0;
      const spent = refusal.spent ?? 0;
      const reserved = refusal.keyReserved ?? 0;
      const period = refusal.period ?? "month";
      const scope = refusal.scope ?? "key";
      const resets = new Date(periods[period].end).toISOString();
      const whose = scope === "account" ? "The account's" : "This key's";
      const fields = { window: { scope, period } };
      if (spent >= budget) {
        return new GatewayError(
          "budget_exceeded",
          `${whose} budget of ${rub(budget)} per ${period} is used up (${rub(spent)} spent); it resets at ${resets}.`,
          { fields },
        );
      }
      const available = budget - spent - reserved;
      return new GatewayError(
        "budget_exceeded",
        `This request could cost up to ${rub(worst.amount)} (${worst.promptTokens} prompt + ${worst.completionTokens} ` +
          `completion tokens), but ${rub(budget - spent)} of ${whose.toLowerCase()} ${ADJECTIVE[period]} budget remain` +
          (reserved > 0 ? `, of which ${rub(reserved)} are held by requests in flight` : "") +
          `. ${fitHint(available, worst, price)}The budget resets at ${resets}.`,
        { fields },
      );
    }
    case "insufficient_balance": {
      const balance = refusal.balance ?? 0;
      const reserved = refusal.accountReserved ?? 0;
      if (balance <= 0) {
        return new GatewayError(
          "insufficient_balance",
          `The account balance is ${rub(balance)}. Top up the account to continue.`,
        );
      }
      return new GatewayError(
        "insufficient_balance",
        `This request could cost up to ${rub(worst.amount)}, but the account balance is ${rub(balance)}` +
          (reserved > 0 ? `, of which ${rub(reserved)} are held by requests in flight` : "") +
          `. ${fitHint(balance - reserved, worst, price)}Top up the account to continue.`,
      );
    }
    default:
      return new GatewayError(refusal.code);
  }
}

/** A wait as people read it: "3 s", "0.2 s", rounded up to a tenth of a second. */
function seconds(ms: number): string {
  return `${Math.ceil(ms / 100) / 10} s`;
}

const ADJECTIVE: Record<Period, string> = { day: "daily", week: "weekly", month: "monthly" };

/** Suggests the largest max_tokens whose worst case fits in `available`, when one does. */
function fitHint(available: Micros, worst: WorstCase, price: ModelPrice): string {
  if (price.output <= 0) return "";
  const promptCost = BigInt(worst.promptTokens) * BigInt(price.input);
  const room = BigInt(Math.max(0, available)) * 1_000_000n - promptCost;
  const fits = room > 0n ? Number(room / BigInt(price.output) / BigInt(worst.choices)) : 0;
  return fits > 0 ? `Set max_tokens to at most ${fits} to fit. ` : "Even the prompt alone does not fit. ";
}

function rub(micros: Micros): string {
  return `${formatRubles(micros)} RUB`;
}

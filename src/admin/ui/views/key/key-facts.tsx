// A key's facts as its page shows them: ids, times, every budget window and its reset, limits, models and
// privacy.

import type { Key } from "../../api/types.js";
import { BillingTime, Time, TimeMessage } from "../../components/time.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";

export function KeyFacts({ k }: { k: Key }) {
  const { t, rub, num } = useUi();
  const limits = [
    k.limits.rpm !== null && t("key.limit.rpm", { n: num(k.limits.rpm) }),
    k.limits.tpm !== null && t("key.limit.tpm", { n: num(k.limits.tpm) }),
    k.limits.max_parallel !== null && t("key.limit.parallel", { n: num(k.limits.max_parallel) }),
  ].filter((limit): limit is string => limit !== false);
  return (
    <section class="card facts" aria-labelledby="facts-heading">
      <h2 id="facts-heading">{t("key.facts")}</h2>
      {k.grace_until !== null && (
        <p class="note">
          <TimeMessage message="key.graceUntil" name="date" iso={k.grace_until} />
        </p>
      )}
      {k.state === "disabled" && k.disabled_at !== null && (
        <p class="note warning">
          <TimeMessage message="key.disabledSince" name="date" iso={k.disabled_at} />
        </p>
      )}
      <dl>
        <dt>{t("keys.col.id")}</dt>
        <dd>
          <code>{k.id}</code>
        </dd>
        <dt>{t("keys.col.hint")}</dt>
        <dd>
          <code>…{k.hint}</code>
        </dd>
        <dt>{t("key.created")}</dt>
        <dd>
          <Time iso={k.created_at} />
        </dd>
        {k.revoked_at !== null && (
          <>
            <dt>{t("key.revoked")}</dt>
            <dd>
              <Time iso={k.revoked_at} />
            </dd>
          </>
        )}
        <dt>{t("keys.col.expires")}</dt>
        <dd>{k.expires_at ? <Time iso={k.expires_at} /> : t("common.never")}</dd>
        <dt>{t("keys.col.budget")}</dt>
        <dd>
          {k.budgets.length > 0 ? (
            k.budgets.map((window) => (
              <div class="budget" key={window.period} data-testid={`window-${window.period}`}>
                <span class="spent">
                  {t("keys.spentOf", {
                    spent: rub(window.spent),
                    amount: rub(window.amount),
                    period: t(`keys.period.${window.period}` as MessageKey),
                  })}
                </span>
                <progress
                  max={window.amount}
                  value={Math.min(window.spent, window.amount)}
                  aria-label={t("keys.spentLabel", { spent: rub(window.spent), amount: rub(window.amount) })}
                />
                <span class="muted">{t("keys.remaining", { remaining: rub(window.remaining) })}</span>
              </div>
            ))
          ) : (
            <span class="muted">{t("keys.noBudget")}</span>
          )}
        </dd>
        <dt>{t("keys.col.reset")}</dt>
        <dd>
          {k.budgets.length === 0
            ? "—"
            : k.budgets.map((window) => (
                <div key={window.period}>
                  <BillingTime iso={window.resets_at} />
                </div>
              ))}
        </dd>
        <dt>{t("key.limits")}</dt>
        <dd>{limits.length === 0 ? <span class="muted">{t("key.noLimits")}</span> : limits.join(", ")}</dd>
        <dt>{t("keys.col.models")}</dt>
        <dd>{k.allowed_models === null ? t("keys.allModels") : k.allowed_models.join(", ")}</dd>
        <dt>{t("keys.col.privacy")}</dt>
        <dd>{k.log_bodies ? t("keys.bodiesOn") : t("keys.bodiesOff")}</dd>
      </dl>
    </section>
  );
}

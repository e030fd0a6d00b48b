// An account's keys as a sortable table: name, id, hint, budget with a progress bar, reset date, expiry and
// state, models and privacy. Sorting is done in the page: an account has few keys.

import { useState } from "preact/hooks";
import type { Key } from "./api.js";
import { type Ui, useUi } from "./context.js";
import type { MessageKey } from "./i18n.js";
import { href } from "./route.js";
import { COLUMNS, type Column, newestFirst, sortKeys } from "./sort-keys.js";

function BudgetCell({ k, ui }: { k: Key; ui: Ui }) {
  const { t, rub } = ui;
  const budget = k.budget;
  if (!budget) return <span class="muted">{t("keys.noBudget")}</span>;
  const period = t(`keys.period.${budget.period}` as MessageKey);
  return (
    <div class="budget">
      <span class="spent">
        {t("keys.spentOf", { spent: rub(budget.spent), initial: rub(budget.initial), period })}
      </span>
      <progress
        max={budget.initial}
        value={Math.min(budget.spent, budget.initial)}
        aria-label={t("keys.spentLabel", { spent: rub(budget.spent), initial: rub(budget.initial) })}
      />
      <span class="remaining muted">{t("keys.remaining", { remaining: rub(budget.remaining) })}</span>
    </div>
  );
}

export function StateBadge({ k }: { k: Key }) {
  const { t, instant } = useUi();
  return (
    <span class={`badge ${k.state}`}>
      {k.state === "revoked" && k.revoked_at
        ? t("keys.revokedAt", { date: instant(k.revoked_at) })
        : t(`keys.state.${k.state}`)}
    </span>
  );
}

export function KeysTable({
  keys,
  accountId,
  onRevoke,
}: {
  keys: Key[];
  accountId: string;
  onRevoke(key: Key): void;
}) {
  const ui = useUi();
  const { t, instant } = ui;
  const [sort, setSort] = useState<{ column: Column | null; ascending: boolean }>({
    column: null,
    ascending: true,
  });
  // Newest first until a column is chosen.
  const rows = sort.column === null ? newestFirst(keys) : sortKeys(keys, sort.column, sort.ascending);

  const header = (column: Column) => {
    const active = sort.column === column;
    return (
      <th scope="col" aria-sort={active ? (sort.ascending ? "ascending" : "descending") : undefined}>
        <button
          type="button"
          class="sort"
          onClick={() => setSort({ column, ascending: active ? !sort.ascending : true })}
        >
          {t(`keys.col.${column}`)}
          <span class="arrow" aria-hidden="true">
            {active ? (sort.ascending ? "▲" : "▼") : "↕"}
          </span>
        </button>
      </th>
    );
  };

  return (
    <div class="table-wrap">
      <table class="keys">
        <thead>
          <tr>
            {COLUMNS.map(header)}
            <th scope="col">{t("keys.col.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((k) => (
            <tr key={k.id} data-key-id={k.id} class={k.state === "active" ? undefined : "inactive"}>
              <th scope="row">
                <a href={href({ name: "key", accountId, keyId: k.id })}>{k.name}</a>
              </th>
              <td>
                <code>{k.id}</code>
              </td>
              <td>
                <code>…{k.hint}</code>
              </td>
              <td>
                <BudgetCell k={k} ui={ui} />
              </td>
              <td class="date">{k.budget ? instant(k.budget.reset_at) : "—"}</td>
              <td class="date">{k.expires_at ? instant(k.expires_at) : t("common.never")}</td>
              <td>
                <StateBadge k={k} />
              </td>
              <td>
                {k.allowed_models === null ? (
                  <span class="muted">{t("keys.allModels")}</span>
                ) : (
                  k.allowed_models.join(", ")
                )}
              </td>
              <td>{k.log_bodies ? t("keys.bodiesOn") : t("keys.bodiesOff")}</td>
              <td>
                {k.state === "active" && (
                  <button
                    type="button"
                    class="danger small"
                    aria-label={t("keys.revokeNamed", { name: k.name })}
                    onClick={() => onRevoke(k)}
                  >
                    {t("keys.revoke")}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

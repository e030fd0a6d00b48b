// An account's keys as a table narrow enough for a laptop's window: each key's name (with its id and hint),
// state, spend this period and expiry, and its actions behind a menu; a search and a state filter above it.
// Models, privacy, limits and the budget's reset are on the key's own page. Sorting and filtering are done
// in the page: an account has few keys.

import { useId, useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { Key } from "../../api/types.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { type MenuItem, RowMenu } from "../../components/row-menu.js";
import { StateBadge } from "../../components/state-badge.js";
import { Time } from "../../components/time.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { href } from "../../route.js";
import {
  COLUMNS,
  type Column,
  filterKeys,
  newestFirst,
  STATE_FILTERS,
  type StateFilter,
  sortKeys,
} from "./sort-keys.js";

/** Keys that can no longer be used: their budget is history, so it gets no bar and no reset. */
const isFinal = (k: Key) => k.state === "revoked" || k.state === "expired";

function SpendCell({ k }: { k: Key }) {
  const { t, rub } = useUi();
  // The key's first window: the table has room for one; the key's page shows them all.
  const budget = k.budgets[0];
  if (isFinal(k)) {
    return budget && budget.spent > 0 ? (
      <span class="muted">{t("keys.spentOnly", { spent: rub(budget.spent) })}</span>
    ) : (
      <span class="muted">—</span>
    );
  }
  if (!budget) return <span class="muted">{t("keys.noBudget")}</span>;
  const period = t(`keys.period.${budget.period}` as MessageKey);
  return (
    <div class="budget">
      <span class="spent">
        {t("keys.spentOf", { spent: rub(budget.spent), amount: rub(budget.amount), period })}
      </span>
      <progress
        max={budget.amount}
        value={Math.min(budget.spent, budget.amount)}
        aria-label={t("keys.spentLabel", { spent: rub(budget.spent), amount: rub(budget.amount) })}
      />
      <span class="remaining muted small">{t("keys.remaining", { remaining: rub(budget.remaining) })}</span>
    </div>
  );
}

const HEADERS: Record<Column, MessageKey> = {
  name: "keys.col.name",
  state: "keys.col.state",
  budget: "keys.col.spend",
  expires: "keys.col.expires",
};

export function KeysTable({
  keys,
  accountId,
  onRevoke,
  onChanged,
}: {
  keys: Key[];
  accountId: string;
  /** Called to revoke a key from its menu; without it (a role that may not), the menu offers no revoking. */
  onRevoke?(key: Key): void;
  /** Called with a key disabled or enabled from its menu; without it, the menu offers neither. */
  onChanged?(key: Key): void;
}) {
  const { t } = useUi();
  const [sort, setSort] = useState<{ column: Column | null; ascending: boolean }>({
    column: null,
    ascending: true,
  });
  const [search, setSearch] = useState("");
  const [state, setState] = useState<StateFilter>("all");
  const [done, setDone] = useState<string | null>(null);
  const switching = useAction();
  const searchId = useId();
  const stateId = useId();

  const shown = filterKeys(keys, search, state);
  // Newest first until a column is chosen.
  const rows = sort.column === null ? newestFirst(shown) : sortKeys(shown, sort.column, sort.ascending);

  const setDisabled = (k: Key, disable: boolean) =>
    switching.run(async () => {
      setDone(null);
      const next = await (disable ? api.disableKey : api.enableKey)(k.account_id, k.id);
      setDone(t(disable ? "key.disabledDone" : "key.enabledDone", { name: next.name }));
      onChanged?.(next);
    });

  const actions = (k: Key): MenuItem[] => {
    const live = k.state === "active" || k.state === "rotating" || k.state === "disabled";
    const items: MenuItem[] = [
      { label: t("keys.open"), href: href({ name: "key", accountId, keyId: k.id }) },
    ];
    if (live && onChanged) {
      const disable = k.state !== "disabled";
      items.push({
        label: t(disable ? "key.disable" : "key.enable"),
        onSelect: () => setDisabled(k, disable),
      });
    }
    if (live && onRevoke) items.push({ label: t("keys.revoke"), danger: true, onSelect: () => onRevoke(k) });
    return items;
  };

  const header = (column: Column) => {
    const active = sort.column === column;
    return (
      <th
        scope="col"
        class={`col-${column}`}
        aria-sort={active ? (sort.ascending ? "ascending" : "descending") : undefined}
      >
        <button
          type="button"
          class="sort"
          onClick={() => setSort({ column, ascending: active ? !sort.ascending : true })}
        >
          {t(HEADERS[column])}
          <span class="arrow" aria-hidden="true">
            {active ? (sort.ascending ? "▲" : "▼") : "↕"}
          </span>
        </button>
      </th>
    );
  };

  return (
    <>
      <div class="table-tools">
        <div class="tool">
          <label for={searchId}>{t("keys.search")}</label>
          <input
            id={searchId}
            type="search"
            autoComplete="off"
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
        </div>
        <div class="tool">
          <label for={stateId}>{t("keys.col.state")}</label>
          <select
            id={stateId}
            value={state}
            onChange={(event) => setState(event.currentTarget.value as StateFilter)}
          >
            {STATE_FILTERS.map((value) => (
              <option key={value} value={value}>
                {value === "all" ? t("keys.filter.all") : t(`keys.state.${value}`)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {done !== null && <Status>{done}</Status>}
      {switching.error !== null && <ErrorNote error={switching.error} />}
      {rows.length === 0 ? (
        <p class="muted" role="status">
          {t("keys.noMatch")}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="keys">
            <thead>
              <tr>
                {COLUMNS.map(header)}
                <th scope="col" class="col-actions">
                  <span class="visually-hidden">{t("keys.col.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((k) => (
                <tr
                  key={k.id}
                  data-key-id={k.id}
                  data-state={k.state}
                  class={k.state === "active" ? undefined : "inactive"}
                >
                  <th scope="row">
                    <a href={href({ name: "key", accountId, keyId: k.id })}>{k.name}</a>
                    <div class="key-ids muted small">
                      <code>{k.id}</code> · <code>…{k.hint}</code>
                    </div>
                  </th>
                  <td>
                    <StateBadge k={k} />
                  </td>
                  <td>
                    <SpendCell k={k} />
                  </td>
                  <td class="date">{k.expires_at ? <Time iso={k.expires_at} /> : t("common.never")}</td>
                  <td class="col-actions">
                    <RowMenu label={t("keys.actionsFor", { name: k.name })} items={actions(k)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

// The operator's accounts: totals of every account (balances, this month's requests and spend), and a page of
// the accounts that match a search, sorted by id, balance or spend, each with its spend this month and how
// long its oldest alert event has waited for delivery. Read from GET /admin/v1/overview, figures as given.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import { LoadProblem } from "../../components/notes.js";
import { Time } from "../../components/time.js";
import { InlineField } from "../../forms/inline-field.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";
import { href } from "../../route.js";

const PAGE = 50;
const SORTS = ["id", "balance", "spend"] as const;

export function OperatorAccounts({ round }: { round: number }) {
  const { t, rub, num } = useUi();
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState({ q: "", sort: "id" as (typeof SORTS)[number], offset: 0 });
  const loaded = useLoad(
    () =>
      api.overview({ ...(query.q && { q: query.q }), sort: query.sort, offset: query.offset, limit: PAGE }),
    `${JSON.stringify(query)} ${round}`,
  );
  const overview = loaded.data;

  return (
    <>
      {overview && (
        <dl class="totals" data-testid="operator-totals">
          <div>
            <dt>{t("op.total.accounts")}</dt>
            <dd>{num(overview.totals.accounts)}</dd>
          </div>
          <div>
            <dt>{t("op.total.balance")}</dt>
            <dd>{rub(overview.totals.balance)}</dd>
          </div>
          <div>
            <dt>{t("op.total.month", { month: overview.month })}</dt>
            <dd>
              {rub(overview.totals.month_cost)}
              <span class="muted">
                {t("op.total.requests", { requests: num(overview.totals.month_requests) })}
              </span>
            </dd>
          </div>
        </dl>
      )}
      <form
        class="range-form"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ ...query, q: search.trim(), offset: 0 });
        }}
      >
        <InlineField label={t("op.search")}>
          {(id) => (
            <input
              id={id}
              type="search"
              value={search}
              onInput={(event) => setSearch(event.currentTarget.value)}
            />
          )}
        </InlineField>
        <InlineField label={t("op.sort")}>
          {(id) => (
            <select
              id={id}
              value={query.sort}
              onChange={(event) =>
                setQuery({ ...query, sort: event.currentTarget.value as (typeof SORTS)[number], offset: 0 })
              }
            >
              {SORTS.map((sort) => (
                <option key={sort} value={sort}>
                  {t(`op.sort.${sort}`)}
                </option>
              ))}
            </select>
          )}
        </InlineField>
        <button type="submit" class="secondary">
          {t("op.find")}
        </button>
      </form>
      <LoadProblem loaded={loaded} />
      {overview &&
        (overview.matching === 0 ? (
          <p class="muted">{overview.totals.accounts === 0 ? t("op.noAccounts") : t("op.noMatch")}</p>
        ) : (
          <>
            <div class="table-wrap">
              <table class="accounts">
                <thead>
                  <tr>
                    <th scope="col">{t("op.col.id")}</th>
                    <th scope="col">{t("op.col.name")}</th>
                    <th scope="col" class="num">
                      {t("op.col.balance")}
                    </th>
                    <th scope="col" class="num">
                      {t("op.col.month")}
                    </th>
                    <th scope="col">{t("op.col.alerts")}</th>
                    <th scope="col">{t("op.col.token")}</th>
                    <th scope="col">{t("op.col.created")}</th>
                  </tr>
                </thead>
                <tbody>
                  {overview.accounts.map((account) => (
                    <tr key={account.id} data-account-id={account.id}>
                      <th scope="row">
                        <a href={href({ name: "account", accountId: account.id })}>{account.id}</a>
                      </th>
                      <td>{account.name}</td>
                      <td
                        class={account.balance < 0 ? "num nowrap negative" : "num nowrap"}
                        data-testid="balance"
                      >
                        {rub(account.balance)}
                      </td>
                      <td class="num nowrap" data-testid="month-spend">
                        {rub(account.month.cost)}
                        <div class="muted small">
                          {t("op.total.requests", { requests: num(account.month.requests) })}
                        </div>
                      </td>
                      <td>
                        {account.undelivered_since ? (
                          <span class="badge disabled">
                            {t("op.undelivered")} <Time iso={account.undelivered_since} />
                          </span>
                        ) : (
                          <span class="muted">{t("op.delivered")}</span>
                        )}
                      </td>
                      <td>
                        {account.token ? (
                          <code>…{account.token.hint}</code>
                        ) : (
                          <span class="muted">{t("common.none")}</span>
                        )}
                      </td>
                      <td class="nowrap">
                        <Time iso={account.created_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav class="pager" aria-label={t("op.pages")}>
              <button
                type="button"
                class="secondary small"
                disabled={overview.offset === 0}
                onClick={() => setQuery({ ...query, offset: Math.max(0, query.offset - PAGE) })}
              >
                {t("op.prev")}
              </button>
              <span aria-live="polite" data-testid="accounts-range">
                {t("req.range", {
                  first: num(overview.offset + 1),
                  last: num(Math.min(overview.offset + overview.accounts.length, overview.matching)),
                  total: num(overview.matching),
                })}
              </span>
              <button
                type="button"
                class="secondary small"
                disabled={overview.offset + PAGE >= overview.matching}
                onClick={() => setQuery({ ...query, offset: query.offset + PAGE })}
              >
                {t("op.next")}
              </button>
            </nav>
          </>
        ))}
    </>
  );
}

// An account's usage overview: a range of days (this month by default), totals for today, this month and the
// range, the daily spend stacked by key or by model, the top keys and models, and the CSV exports. Every figure
// is the admin API's own (GET …/usage), shown as it comes: the page adds nothing up itself.

import { useMemo, useState } from "preact/hooks";
import { ApiError } from "../../api/client.js";
import { api } from "../../api/endpoints.js";
import type { AccountUsage } from "../../api/types.js";
import { CachedTokens, DayCells } from "../../components/day-cells.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { DateField } from "../../forms/inline-field.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";
import { href } from "../../route.js";
import { type GroupBy, stacksOf } from "./stacked-usage.js";
import { stackLabel, UsageChart } from "./usage-chart.js";

type Figures = AccountUsage["totals"]["today"];

function Total({ label, detail, figures }: { label: string; detail: string; figures: Figures }) {
  const { t, rub, num } = useUi();
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        {rub(figures.cost)}
        <span class="muted">
          {t("usage.requestsTokens", {
            requests: num(figures.requests),
            prompt: num(figures.prompt_tokens),
            completion: num(figures.completion_tokens),
          })}
          {detail && ` · ${detail}`}
        </span>
      </dd>
    </div>
  );
}

export function AccountUsageSection({ accountId }: { accountId: string }) {
  const ui = useUi();
  const { t, rub, num, day } = ui;
  // The range asked for; empty means the API's default (this month up to today).
  const [range, setRange] = useState<{ from: string; to: string }>({ from: "", to: "" });
  const [draft, setDraft] = useState(range);
  const [by, setBy] = useState<GroupBy>("key");
  const [exporting, setExporting] = useState<unknown>(null);
  const loaded = useLoad(
    () => api.accountUsage(accountId, range.from || undefined, range.to || undefined),
    `${accountId} ${range.from} ${range.to}`,
  );
  const usage = loaded.data;
  const stacks = useMemo(() => (usage ? stacksOf(usage, by) : []), [usage, by]);
  const shown = usage ? t("key.range", { from: day(usage.from), to: day(usage.to) }) : "";

  const exportCsv = (what: "usage" | "requests") => {
    setExporting(null);
    const from = usage?.from;
    const to = usage?.to;
    (what === "usage" ? api.downloadUsage : api.downloadRequests)(accountId, from, to).catch(
      (error: unknown) =>
        setExporting(error instanceof ApiError ? error : new ApiError(0, "network_error", "network error")),
    );
  };

  return (
    <section aria-labelledby="usage-heading">
      <div class="section-head">
        <h2 id="usage-heading">{t("usage.title")}</h2>
      </div>
      <form
        class="range-form"
        aria-label={t("usage.range")}
        onSubmit={(event) => {
          event.preventDefault();
          setRange(draft);
        }}
      >
        <DateField
          label={t("usage.from")}
          value={draft.from || usage?.from || ""}
          onInput={(from) => setDraft({ ...draft, from })}
        />
        <DateField
          label={t("usage.to")}
          value={draft.to || usage?.to || ""}
          onInput={(to) => setDraft({ ...draft, to })}
        />
        <button type="submit" class="secondary">
          {t("usage.show")}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setDraft({ from: "", to: "" });
            setRange({ from: "", to: "" });
          }}
        >
          {t("usage.thisMonth")}
        </button>
        <span class="spacer" />
        <button type="button" class="secondary" disabled={!usage} onClick={() => exportCsv("usage")}>
          {t("usage.exportUsage")}
        </button>
        <button type="button" class="secondary" disabled={!usage} onClick={() => exportCsv("requests")}>
          {t("usage.exportRequests")}
        </button>
      </form>
      {exporting !== null && <ErrorNote error={exporting} />}
      <LoadProblem loaded={loaded} />
      {usage && (
        <>
          <p class="muted">{t("usage.zone", { zone: usage.timezone })}</p>
          <dl class="totals" data-testid="usage-totals">
            <Total label={t("usage.today")} detail={day(usage.today)} figures={usage.totals.today} />
            <Total label={t("usage.month")} detail="" figures={usage.totals.month} />
            <Total label={t("usage.inRange")} detail={shown} figures={usage.totals.range} />
          </dl>
          <fieldset class="segmented">
            <legend>{t("usage.stackBy")}</legend>
            {(["key", "model"] as const).map((value) => (
              <label key={value}>
                <input
                  type="radio"
                  name={`stack-${accountId}`}
                  value={value}
                  checked={by === value}
                  onChange={() => setBy(value)}
                />
                {t(value === "key" ? "usage.byKey" : "usage.byModel")}
              </label>
            ))}
          </fieldset>
          {usage.totals.range.requests === 0 ? (
            <Status>{t("usage.none")}</Status>
          ) : (
            <>
              <figure>
                <figcaption>
                  <strong>{t(by === "key" ? "usage.chartByKey" : "usage.chartByModel")}</strong>{" "}
                  <span class="muted">{shown}</span>
                </figcaption>
                <UsageChart
                  usage={usage}
                  stacks={stacks}
                  label={`${t(by === "key" ? "usage.chartByKey" : "usage.chartByModel")}. ${shown}`}
                />
                <ul class="legend-list">
                  {stacks.map((stack, i) => (
                    <li key={stack.id}>
                      <span class={`swatch s${i % 6}`} aria-hidden="true" />
                      {stackLabel(ui, stack)}
                    </li>
                  ))}
                </ul>
              </figure>
              <div class="two-columns">
                <section aria-labelledby="top-keys-heading">
                  <h3 id="top-keys-heading">{t("usage.topKeys")}</h3>
                  <div class="table-wrap">
                    <table data-testid="top-keys">
                      <thead>
                        <tr>
                          <th scope="col">{t("usage.col.key")}</th>
                          <th scope="col" class="num">
                            {t("usage.col.requests")}
                          </th>
                          <th scope="col" class="num">
                            {t("usage.col.cost")}
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {usage.keys.map((k) => (
                          <tr key={k.key_id} data-usage-key={k.key_id}>
                            <th scope="row">
                              <a href={href({ name: "key", accountId, keyId: k.key_id })}>{k.name}</a>{" "}
                              <code class="muted small">{k.key_id}</code>
                            </th>
                            <td class="num">{num(k.requests)}</td>
                            <td class="num nowrap">{rub(k.cost)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </section>
                <section aria-labelledby="top-models-heading">
                  <h3 id="top-models-heading">{t("usage.topModels")}</h3>
                  <div class="table-wrap">
                    <table data-testid="top-models">
                      <thead>
                        <tr>
                          <th scope="col">{t("usage.col.model")}</th>
                          <th scope="col" class="num">
                            {t("usage.col.requests")}
                          </th>
                          <th scope="col" class="num">
                            {t("usage.col.tokens")}
                          </th>
                          <th scope="col" class="num">
                            {t("usage.col.cost")}
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {usage.models.map((m) => (
                          <tr key={`${m.other}:${m.model ?? ""}`}>
                            <th scope="row">
                              {m.other
                                ? t("usage.otherModels")
                                : m.model === null
                                  ? t("usage.noModel")
                                  : m.model}
                            </th>
                            <td class="num">{num(m.requests)}</td>
                            <td class="num nowrap">
                              {num(m.prompt_tokens)} / {num(m.completion_tokens)}
                              <CachedTokens n={m.cached_tokens} />
                            </td>
                            <td class="num nowrap">{rub(m.cost)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </section>
              </div>
              <details class="numbers">
                <summary>{t("chart.numbers")}</summary>
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">{t("usage.col.date")}</th>
                        <th scope="col" class="num">
                          {t("usage.col.requests")}
                        </th>
                        <th scope="col" class="num">
                          {t("usage.col.tokens")}
                        </th>
                        <th scope="col" class="num">
                          {t("usage.col.cost")}
                        </th>
                        <th scope="col" class="num">
                          {t("usage.col.errors")}
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {usage.days
                        .filter((d) => d.requests > 0)
                        .map((d) => (
                          <tr key={d.date}>
                            <DayCells d={d} />
                          </tr>
                        ))}
                    </tbody>
                  </table>
                </div>
              </details>
            </>
          )}
        </>
      )}
    </section>
  );
}

// A key's kept requests as the key page shows them: filters (status, model, days, request id) and pages of
// 25, read from the admin API; one row per request, its bodies (when the key keeps them) opened on demand and
// pretty-printed when they are JSON.

import { useId, useState } from "preact/hooks";
import { api, type RequestQuery } from "../../api/endpoints.js";
import type { RequestLogEntry } from "../../api/types.js";
import { CachedTokens } from "../../components/day-cells.js";
import { LoadProblem } from "../../components/notes.js";
import { Time } from "../../components/time.js";
import { DateField, InlineField } from "../../forms/inline-field.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";

const PAGE = 25;
const STATUSES = ["", "ok", "error", "2xx", "4xx", "5xx"] as const;

export function KeyRequestsSection({
  accountId,
  keyId,
  logBodies,
  reloadKey,
}: {
  accountId: string;
  keyId: string;
  logBodies: boolean;
  /** Changes when the page is refreshed, so the requests are read again too. */
  reloadKey: number;
}) {
  const { t, num } = useUi();
  const [draft, setDraft] = useState<RequestQuery>({});
  const [query, setQuery] = useState<RequestQuery>({});
  const [offset, setOffset] = useState(0);
  const loaded = useLoad(
    () => api.requestPage(accountId, keyId, { ...query, offset, limit: PAGE }),
    `${accountId}/${keyId} ${JSON.stringify(query)} ${offset} ${reloadKey}`,
  );
  const page = loaded.data;
  const set = (field: keyof RequestQuery, value: string) =>
    setDraft({ ...draft, [field]: value === "" ? undefined : value });
  const filtered = Object.values(query).some((value) => value !== undefined);

  return (
    <>
      <form
        class="range-form"
        aria-label={t("req.filters")}
        onSubmit={(event) => {
          event.preventDefault();
          setOffset(0);
          setQuery(draft);
        }}
      >
        <InlineField label={t("req.filter.status")}>
          {(id) => (
            <select
              id={id}
              value={draft.status ?? ""}
              onChange={(event) => set("status", event.currentTarget.value)}
            >
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {t(`req.status.${status === "" ? "all" : status}`)}
                </option>
              ))}
            </select>
          )}
        </InlineField>
        <InlineField label={t("req.filter.model")}>
          {(id) => (
            <select
              id={id}
              value={draft.model ?? "*"}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setDraft({ ...draft, model: value === "*" ? undefined : value });
              }}
            >
              <option value="*">{t("req.model.all")}</option>
              {(page?.models ?? []).map((model) => (
                <option key={model ?? ""} value={model ?? ""}>
                  {model ?? t("usage.noModel")}
                </option>
              ))}
            </select>
          )}
        </InlineField>
        <DateField label={t("usage.from")} value={draft.from ?? ""} onInput={(from) => set("from", from)} />
        <DateField label={t("usage.to")} value={draft.to ?? ""} onInput={(to) => set("to", to)} />
        <InlineField label={t("req.filter.id")}>
          {(id) => (
            <input
              id={id}
              type="search"
              value={draft.request_id ?? ""}
              onInput={(event) => set("request_id", event.currentTarget.value)}
            />
          )}
        </InlineField>
        <button type="submit" class="secondary">
          {t("req.apply")}
        </button>
        {filtered && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft({});
              setQuery({});
              setOffset(0);
            }}
          >
            {t("req.clear")}
          </button>
        )}
      </form>
      <LoadProblem loaded={loaded} />
      {page && (
        <>
          {page.total === 0 && filtered ? (
            <p class="muted">{t("req.noMatch")}</p>
          ) : (
            <RequestsTable requests={page.requests} logBodies={logBodies} />
          )}
          {page.total > 0 && (
            <nav class="pager" aria-label={t("req.pages")}>
              <button
                type="button"
                class="secondary small"
                disabled={page.offset === 0}
                onClick={() => setOffset(Math.max(0, page.offset - PAGE))}
              >
                {t("req.newer")}
              </button>
              <span aria-live="polite" data-testid="requests-range">
                {t("req.range", {
                  first: num(page.offset + 1),
                  last: num(page.offset + page.requests.length),
                  total: num(page.total),
                })}
              </span>
              <button
                type="button"
                class="secondary small"
                disabled={page.offset + PAGE >= page.total}
                onClick={() => setOffset(page.offset + PAGE)}
              >
                {t("req.older")}
              </button>
            </nav>
          )}
        </>
      )}
    </>
  );
}

function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function RequestsTable({ requests, logBodies }: { requests: RequestLogEntry[]; logBodies: boolean }) {
  const { t } = useUi();
  if (requests.length === 0) return <p class="muted">{t("key.noRequests")}</p>;
  return (
    <div class="table-wrap">
      <table class="requests">
        <thead>
          <tr>
            <th scope="col">{t("req.col.at")}</th>
            <th scope="col">{t("req.col.request")}</th>
            <th scope="col">{t("req.col.model")}</th>
            <th scope="col">{t("req.col.status")}</th>
            <th scope="col">{t("req.col.tokens")}</th>
            <th scope="col">{t("req.col.cost")}</th>
            <th scope="col">{t("req.col.latency")}</th>
            <th scope="col">{t("req.col.bodies")}</th>
          </tr>
        </thead>
        <tbody>
          {requests.map((r) => (
            <RequestRow key={r.request_id} r={r} logBodies={logBodies} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

const REQUEST_COLUMNS = 8;

function RequestRow({ r, logBodies }: { r: RequestLogEntry; logBodies: boolean }) {
  const { t, num, rub, ms } = useUi();
  const [open, setOpen] = useState(false);
  const bodiesId = useId();
  const hasBodies = r.request_body !== undefined || r.response_body !== undefined;
  return (
    <>
      <tr data-request-id={r.request_id} class={open ? "open" : undefined}>
        <td class="date">
          <Time iso={r.at} />
        </td>
        <td>
          <code>
            {r.method} {r.path}
          </code>
          <div class="muted small">{r.request_id}</div>
        </td>
        <td>{r.model ?? "—"}</td>
        <td>
          <span class={r.status >= 400 ? "badge revoked" : "badge active"}>{r.status}</span>{" "}
          <span class="muted small">{r.outcome}</span>
        </td>
        <td class="num nowrap">
          {num(r.prompt_tokens)} / {num(r.completion_tokens)}
          <CachedTokens n={r.cached_tokens ?? 0} />
          {r.usage_estimated && <div class="muted small">{t("req.estimated")}</div>}
        </td>
        <td class="num nowrap">{rub(r.cost)}</td>
        <td class="num nowrap">
          {ms(r.latency_ms)} / {ms(r.upstream_ttfb_ms)}
          {r.queue_ms !== undefined && r.queue_ms > 0 && (
            <div class="muted small">{t("req.queued", { ms: ms(r.queue_ms) })}</div>
          )}
        </td>
        <td>
          {hasBodies ? (
            <button
              type="button"
              class="secondary small"
              aria-expanded={open}
              aria-controls={bodiesId}
              onClick={() => setOpen(!open)}
            >
              {open ? t("req.hide") : t("req.show")}
            </button>
          ) : (
            <span class="muted">{logBodies ? "—" : t("req.notStored")}</span>
          )}
        </td>
      </tr>
      {hasBodies && open && (
        <tr class="bodies-row" id={bodiesId}>
          <td colSpan={REQUEST_COLUMNS}>
            <div class="bodies">
              {r.request_body !== undefined && (
                <div>
                  <h3>{t("req.requestBody")}</h3>
                  <pre>{prettyBody(r.request_body)}</pre>
                </div>
              )}
              {r.response_body !== undefined && (
                <div>
                  <h3>{t("req.responseBody")}</h3>
                  <pre>{prettyBody(r.response_body)}</pre>
                </div>
              )}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}

// A key's recent requests as the key page shows them: one row per request, its bodies (when the key keeps
// them) opened on demand and pretty-printed when they are JSON.

import { useId, useState } from "preact/hooks";
import type { RequestLogEntry } from "./api.js";
import { useUi } from "./context.js";
import { Time } from "./time.js";

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
          {r.usage_estimated && <div class="muted small">{t("req.estimated")}</div>}
        </td>
        <td class="num nowrap">{rub(r.cost)}</td>
        <td class="num nowrap">
          {ms(r.latency_ms)} / {ms(r.upstream_ttfb_ms)}
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

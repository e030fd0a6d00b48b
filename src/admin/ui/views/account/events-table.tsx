// An account's recent alert events: when, what, which key, and how each delivery went — its endpoint, status
// code, attempts and the time of its next try.

import type { AlertEvent } from "../../api/types.js";
import { Time, TimeMessage } from "../../components/time.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { href } from "../../route.js";

export function EventsTable({ events, accountId }: { events: AlertEvent[]; accountId: string }) {
  const { t } = useUi();
  if (events.length === 0) return <p class="muted">{t("events.none")}</p>;
  return (
    <div class="table-wrap">
      <table class="events">
        <thead>
          <tr>
            <th scope="col">{t("events.col.at")}</th>
            <th scope="col">{t("events.col.type")}</th>
            <th scope="col">{t("events.col.key")}</th>
            <th scope="col">{t("events.col.status")}</th>
            <th scope="col">{t("events.col.deliveries")}</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id} data-event-id={event.id} data-status={event.status}>
              <td class="nowrap">
                <Time iso={event.created_at} />
              </td>
              <td>
                <code>{event.type}</code>
                <div class="muted small">{event.id}</div>
              </td>
              <td>
                {event.key_id ? (
                  <a href={href({ name: "key", accountId, keyId: event.key_id })}>
                    <code>{event.key_id}</code>
                  </a>
                ) : (
                  "—"
                )}
              </td>
              <td>
                <span class={`badge ${badge(event.status)}`}>
                  {t(`events.status.${event.status}` as MessageKey)}
                </span>
              </td>
              <td>
                {event.deliveries.map((delivery) => (
                  <div key={delivery.endpoint} class="small">
                    {delivery.kind === "account"
                      ? t("events.endpoint.account")
                      : t("events.endpoint.operator", { id: delivery.endpoint })}
                    :{" "}
                    {t(
                      `events.status.${delivery.status === "pending" ? "pending" : delivery.status}` as MessageKey,
                    )}
                    {delivery.status_code !== null && <> · HTTP {delivery.status_code}</>} ·{" "}
                    {t("events.delivery.attempts", { count: String(delivery.attempts) })}
                    {delivery.next_attempt_at && (
                      <>
                        {" · "}
                        <TimeMessage
                          message="events.delivery.next"
                          name="at"
                          iso={delivery.next_attempt_at}
                        />
                      </>
                    )}
                    {delivery.error && <div class="muted">{delivery.error}</div>}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function badge(status: AlertEvent["status"]): string {
  if (status === "delivered") return "active";
  if (status === "failed") return "revoked";
  return "expired";
}

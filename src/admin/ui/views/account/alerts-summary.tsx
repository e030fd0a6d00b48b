// An account's alert settings as a credential that may read them but not change them (operator-viewer) sees
// them: the low-balance mark and the webhook, without a form or a button.

import type { AccountAlerts } from "../../api/types.js";
import { useUi } from "../../hooks/use-ui.js";

export function AlertsSummary({ alerts }: { alerts: AccountAlerts }) {
  const { t, rub } = useUi();
  const webhook = alerts.webhook;
  return (
    <dl class="facts" data-testid="alerts-summary">
      <div>
        <dt>{t("alerts.lowBalance")}</dt>
        <dd>{alerts.low_balance === null ? t("common.none") : rub(alerts.low_balance)}</dd>
      </div>
      <div>
        <dt>{t("alerts.webhook")}</dt>
        <dd>
          {webhook ? (
            <>
              <code class="url">{webhook.url}</code>{" "}
              <span class="muted">
                {t("alerts.webhook.events", {
                  events: webhook.events === null ? t("alerts.webhook.allEvents") : webhook.events.join(", "),
                })}
              </span>
            </>
          ) : (
            t("alerts.webhook.none")
          )}
        </dd>
      </div>
    </dl>
  );
}

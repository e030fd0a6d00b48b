// The operator's webhooks (the configuration's alerts.webhooks), each with a button that sends it a test event.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { OperatorAlerts, TestResult } from "../../api/types.js";
import { ErrorNote, LoadProblem } from "../../components/notes.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";

export function OperatorWebhooks({ canTest }: { canTest: boolean }) {
  const { t } = useUi();
  const loaded = useLoad<OperatorAlerts>(() => api.operatorAlerts(), "operator-alerts");
  const data = loaded.data;
  return (
    <section aria-labelledby="op-hooks-heading">
      <h2 id="op-hooks-heading">{t("opHooks.title")}</h2>
      <p class="muted">{t("opHooks.intro")}</p>
      <LoadProblem loaded={loaded} />
      {data &&
        (data.webhooks.length === 0 ? (
          <p class="muted">{t("opHooks.none")}</p>
        ) : (
          <div class="table-wrap">
            <table class="webhooks">
              <thead>
                <tr>
                  <th scope="col">{t("keys.col.id")}</th>
                  <th scope="col">{t("opHooks.col.url")}</th>
                  <th scope="col">{t("opHooks.col.events")}</th>
                  <th scope="col">{t("keys.col.actions")}</th>
                </tr>
              </thead>
              <tbody>
                {data.webhooks.map((webhook) => (
                  <OperatorWebhookRow key={webhook.id} webhook={webhook} canTest={canTest} />
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}

function OperatorWebhookRow({
  webhook,
  canTest,
}: {
  webhook: OperatorAlerts["webhooks"][number];
  canTest: boolean;
}) {
  const { t } = useUi();
  const [tested, setTested] = useState<TestResult | null>(null);
  const { busy, error, run } = useAction();
  return (
    <tr data-webhook-id={webhook.id}>
      <td>
        <code>{webhook.id}</code>
      </td>
      <td>
        <code class="url">{webhook.url}</code>
      </td>
      <td>{webhook.events?.join(", ") ?? t("alerts.webhook.allEvents")}</td>
      <td>
        {canTest && (
          <button
            type="button"
            class="small"
            disabled={busy}
            onClick={() =>
              run(async () => {
                setTested(null);
                setTested(await api.testOperatorWebhook(webhook.id));
              })
            }
          >
            {busy ? t("alerts.webhook.testing") : t("alerts.webhook.test")}
          </button>
        )}
        {tested && (
          <p class={tested.delivered ? "note success" : "note error"} role="status">
            {tested.delivered
              ? t("alerts.webhook.delivered", { id: tested.event_id, status: String(tested.status_code) })
              : t("alerts.webhook.notDelivered", { id: tested.event_id, error: tested.error ?? "" })}
          </p>
        )}
        {error !== null && <ErrorNote error={error} />}
      </td>
    </tr>
  );
}

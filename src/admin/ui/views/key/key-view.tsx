// One key: its facts (key-facts.tsx) and budget, spend/requests and latency per day as charts, the recent
// request log (with bodies when the key keeps them), the view its client gets from GET /v1/key, and a form to
// change it (edit-key.tsx).

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import { type CreatedKey, clientKeyView, type Key } from "../../api/types.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { RefreshButton } from "../../components/refresh-button.js";
import { RevokeDialog } from "../../components/revoke-dialog.js";
import { StateBadge } from "../../components/state-badge.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import { href } from "../../route.js";
import { EditKey } from "./edit-key.js";
import { KeyAlerts } from "./key-alerts.js";
import { UsageCharts } from "./key-charts.js";
import { KeyFacts } from "./key-facts.js";
import { KeyRequestsSection } from "./key-requests.js";
import { RotateDialog, RotatedPanel } from "./rotate-dialog.js";

function loadKey(accountId: string, keyId: string) {
  return Promise.all([api.key(accountId, keyId), api.usage(accountId, keyId)]).then(([key, usage]) => ({
    key,
    days: usage.days,
  }));
}

export function KeyView({ accountId, keyId }: { accountId: string; keyId: string }) {
  const { t } = useUi();
  const writes = useSession().can("keys.write", accountId);
  const loaded = useLoad(() => loadKey(accountId, keyId), `${accountId}/${keyId}`);
  const [revoking, setRevoking] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [rotated, setRotated] = useState<CreatedKey | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const switching = useAction();
  const data = loaded.data;
  const key = data?.key;
  const title = key ? t("key.title", { name: key.name }) : keyId;

  const replaceKey = (next: Key) => {
    if (data) loaded.set({ ...data, key: next });
  };
  // Revoked and expired keys are final here; a disabled one can still be enabled, rotated or revoked.
  const live =
    key !== undefined && (key.state === "active" || key.state === "rotating" || key.state === "disabled");
  const setDisabled = (disable: boolean) =>
    key &&
    switching.run(async () => {
      const next = await (disable ? api.disableKey : api.enableKey)(key.account_id, key.id);
      replaceKey(next);
      setDone(t(disable ? "key.disabledDone" : "key.enabledDone", { name: next.name }));
    });

  return (
    <>
      <p class="crumbs">
        <a href={href({ name: "account", accountId })}>← {t("key.back", { id: accountId })}</a>
      </p>
      <div class="title-row">
        <PageTitle title={title} />
        {key && <StateBadge k={key} />}
        <span class="spacer" />
        <RefreshButton loaded={loaded} />
        {live && writes && (
          <>
            <button type="button" class="secondary" onClick={() => setRotating(true)}>
              {t("key.rotate")}
            </button>
            <button
              type="button"
              class="secondary"
              disabled={switching.busy}
              onClick={() => setDisabled(key.state !== "disabled")}
            >
              {key.state === "disabled" ? t("key.enable") : t("key.disable")}
            </button>
            <button type="button" class="danger" onClick={() => setRevoking(true)}>
              {t("keys.revoke")}
            </button>
          </>
        )}
      </div>
      {done !== null && <Status>{done}</Status>}
      {switching.error !== null && <ErrorNote error={switching.error} />}
      {rotated && <RotatedPanel rotated={rotated} onDismiss={() => setRotated(null)} />}
      <LoadProblem loaded={loaded} />
      {data && key && (
        <>
          <KeyFacts k={key} />
          <KeyAlerts k={key} onSaved={replaceKey} canChange={writes} />
          <section aria-labelledby="usage-heading">
            <h2 id="usage-heading">{t("key.usageTitle")}</h2>
            <UsageCharts days={data.days} />
          </section>
          <section aria-labelledby="requests-heading">
            <h2 id="requests-heading">{t("key.requests")}</h2>
            <p class="muted">{t("key.requestsIntro")}</p>
            <KeyRequestsSection
              accountId={accountId}
              keyId={keyId}
              logBodies={key.log_bodies}
              reloadKey={loaded.round}
            />
          </section>
          <div class="two-columns">
            <section aria-labelledby="client-heading">
              <h2 id="client-heading">{t("key.clientView")}</h2>
              <pre class="json" data-testid="client-view">
                {JSON.stringify(clientKeyView(key), null, 2)}
              </pre>
            </section>
            {writes && (
              <section aria-labelledby="edit-heading">
                <h2 id="edit-heading">{t("key.edit")}</h2>
                {live ? (
                  <EditKey k={key} onSaved={replaceKey} />
                ) : (
                  <p class="muted">{t("key.inactive", { state: t(`keys.state.${key.state}`) })}</p>
                )}
              </section>
            )}
          </div>
        </>
      )}
      {revoking && key && (
        <RevokeDialog
          k={key}
          onCancel={() => setRevoking(false)}
          onDone={(next) => {
            setRevoking(false);
            setDone(t("revoke.done", { name: next.name }));
            replaceKey(next);
          }}
        />
      )}
      {rotating && key && (
        <RotateDialog
          k={key}
          onCancel={() => setRotating(false)}
          onDone={(next) => {
            setRotating(false);
            setDone(null);
            setRotated(next);
            replaceKey(next);
          }}
        />
      )}
    </>
  );
}

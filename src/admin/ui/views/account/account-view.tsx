// One account: its balance, its own budgets, its keys (sortable, revocable), its usage, its share of a full model server, its
// alerts and its audit log; what the credential's role does not allow (creating keys, alerts, members) is not
// offered.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { Key } from "../../api/types.js";
import { AuditTable } from "../../components/audit-table.js";
import { LoadProblem, Status } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { RefreshButton } from "../../components/refresh-button.js";
import { RevokeDialog } from "../../components/revoke-dialog.js";
import { TimeMessage } from "../../components/time.js";
import { useLoad } from "../../hooks/use-load.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey, Values } from "../../i18n/lookup.js";
import { href } from "../../route.js";
import { AccountAlertsSection } from "./account-alerts.js";
import { AccountBudgetsSection } from "./account-budgets.js";
import { AccountSharingSection } from "./account-sharing.js";
import { AccountUsageSection } from "./account-usage.js";
import { KeysTable } from "./keys-table.js";

export function AccountView({ accountId }: { accountId: string }) {
  const { t, rub } = useUi();
  const { can } = useSession();
  const writesKeys = can("keys.write", accountId);
  const loaded = useLoad(() => loadAccount(accountId), accountId);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [notice, setNotice] = useState<{ key: MessageKey; values: Values } | null>(null);
  const data = loaded.data;
  const title = t("account.title", { id: accountId });

  return (
    <>
      {can("overview.read") && (
        <p class="crumbs">
          <a href={href({ name: "operator" })}>← {t("nav.accounts")}</a>
        </p>
      )}
      <div class="title-row">
        <PageTitle title={title} />
        <span class="spacer" />
        {can("members.read", accountId) && (
          <a class="button secondary" href={href({ name: "members", accountId })}>
            {t("members.link")}
          </a>
        )}
        <RefreshButton loaded={loaded} />
      </div>
      <LoadProblem loaded={loaded} />
      {data && (
        <>
          <section class="card balance-card" aria-labelledby="balance-heading">
            <h2 id="balance-heading">{t("account.balance")}</h2>
            <p class={data.account.balance < 0 ? "balance negative" : "balance"} data-testid="balance">
              {rub(data.account.balance)}
            </p>
            <p class="muted">
              {data.account.name !== data.account.id && <>{data.account.name} · </>}
              <TimeMessage message="account.created" name="date" iso={data.account.created_at} />
              {data.account.token && <> · {t("account.token", { hint: data.account.token.hint })}</>}
            </p>
          </section>

          <section aria-labelledby="keys-heading">
            <div class="section-head">
              <h2 id="keys-heading">{t("account.keys")}</h2>
              {writesKeys && (
                <a class="button" href={href({ name: "newKey", accountId })}>
                  {t("account.newKey")}
                </a>
              )}
            </div>
            {notice && <Status>{t(notice.key, notice.values)}</Status>}
            {data.keys.length === 0 ? (
              <p class="muted">{t("account.noKeys")}</p>
            ) : (
              <KeysTable
                keys={data.keys}
                accountId={accountId}
                onRevoke={writesKeys ? setRevoking : undefined}
                onChanged={writesKeys ? loaded.reload : undefined}
              />
            )}
          </section>

          <AccountBudgetsSection
            account={data.account}
            onSaved={(account) => loaded.set({ ...data, account })}
          />

          <AccountUsageSection accountId={accountId} />

          <AccountSharingSection
            account={data.account}
            onSaved={(account) => loaded.set({ ...data, account })}
          />

          {can("alerts.read", accountId) && (
            <AccountAlertsSection accountId={accountId} canChange={can("alerts.write", accountId)} />
          )}

          {can("audit.read", accountId) && (
            <section aria-labelledby="audit-heading">
              <h2 id="audit-heading">{t("account.audit")}</h2>
              <p class="muted">{t("account.auditIntro")}</p>
              <AuditTable entries={data.audit} showAccount={false} />
            </section>
          )}
        </>
      )}
      {revoking && (
        <RevokeDialog
          k={revoking}
          onCancel={() => setRevoking(null)}
          onDone={(key) => {
            setRevoking(null);
            setNotice({ key: "revoke.done", values: { name: key.name } });
            loaded.reload();
          }}
        />
      )}
    </>
  );
}

function loadAccount(accountId: string) {
  return Promise.all([api.account(accountId), api.keys(accountId), api.accountAudit(accountId, 50)]).then(
    ([account, keys, audit]) => ({ account, keys, audit: audit.entries }),
  );
}

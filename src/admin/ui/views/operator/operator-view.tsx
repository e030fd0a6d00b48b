// The operator's view (an operator role): the totals and a searchable page of accounts (operator-accounts.tsx), a
// top-up form, a form for a new account, the operator's webhooks and the audit log of all accounts.

import { api } from "../../api/endpoints.js";
import { AuditTable } from "../../components/audit-table.js";
import { LoadProblem } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { RefreshButton } from "../../components/refresh-button.js";
import { useLoad } from "../../hooks/use-load.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import { NewAccountForm } from "./new-account-form.js";
import { OperatorAccounts } from "./operator-accounts.js";
import { OperatorWebhooks } from "./operator-webhooks.js";
import { TopUpForm } from "./top-up-form.js";

function loadOperator() {
  return Promise.all([api.accounts(), api.audit(100)]).then(([accounts, audit]) => ({
    accounts: [...accounts].sort((a, b) => a.id.localeCompare(b.id)),
    audit: audit.entries,
  }));
}

export function OperatorView() {
  const { t } = useUi();
  const { can } = useSession();
  const loaded = useLoad(loadOperator, "operator");
  const data = loaded.data;
  const title = t("op.title");
  return (
    <>
      <div class="title-row">
        <PageTitle title={title} />
        <RefreshButton loaded={loaded} />
      </div>
      <LoadProblem loaded={loaded} />
      {data && (
        <>
          <section aria-labelledby="accounts-heading">
            <h2 id="accounts-heading">{t("op.accounts")}</h2>
            <OperatorAccounts round={loaded.round} />
          </section>
          {(can("account.topup") || can("accounts.create")) && (
            <div class="two-columns">
              {can("account.topup") && <TopUpForm accounts={data.accounts} onDone={loaded.reload} />}
              {can("accounts.create") && <NewAccountForm onDone={loaded.reload} />}
            </div>
          )}
          {can("operator-alerts.read") && <OperatorWebhooks canTest={can("operator-alerts.test")} />}
          <section aria-labelledby="audit-heading">
            <h2 id="audit-heading">{t("op.audit")}</h2>
            <AuditTable entries={data.audit} showAccount={true} />
          </section>
        </>
      )}
    </>
  );
}

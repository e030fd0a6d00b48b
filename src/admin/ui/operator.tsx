// The operator's view (admin token): the totals and a searchable page of accounts (operator-accounts.tsx), a
// top-up form, a form for a new account, the operator's webhooks and the audit log of all accounts.

import { useState } from "preact/hooks";
import { type Account, api } from "./api.js";
import { AuditTable } from "./audit-table.js";
import {
  ErrorNote,
  Field,
  LoadProblem,
  onLeft,
  PageTitle,
  RefreshButton,
  RublesInput,
  Status,
  useLoad,
} from "./components.js";
import { useUi } from "./context.js";
import type { MessageKey, Values } from "./i18n.js";
import { OperatorAccounts } from "./operator-accounts.js";
import { OperatorWebhooks } from "./operator-webhooks.js";
import { useAction } from "./use-action.js";
import { checkAccountId, checkAmount, checkName } from "./validate.js";

function loadOperator() {
  return Promise.all([api.accounts(), api.audit(100)]).then(([accounts, audit]) => ({
    accounts: [...accounts].sort((a, b) => a.id.localeCompare(b.id)),
    audit: audit.entries,
  }));
}

export function OperatorView() {
  const { t } = useUi();
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
          <div class="two-columns">
            <TopUpForm accounts={data.accounts} onDone={loaded.reload} />
            <NewAccountForm onDone={loaded.reload} />
          </div>
          <OperatorWebhooks />
          <section aria-labelledby="audit-heading">
            <h2 id="audit-heading">{t("op.audit")}</h2>
            <AuditTable entries={data.audit} showAccount={true} />
          </section>
        </>
      )}
    </>
  );
}

type Notice = { key: MessageKey; values: Values };

function TopUpForm({ accounts, onDone }: { accounts: Account[]; onDone(): void }) {
  const { t, rub } = useUi();
  const [accountId, setAccountId] = useState(accounts[0]?.id ?? "");
  const [amount, setAmount] = useState("");
  const [touched, setTouched] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const [notice, setNotice] = useState<Notice | null>(null);
  const checked = checkAmount(amount, true);

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    setNotice(null);
    if (!checked.ok || accountId === "") return clearError();
    await run(async () => {
      const account = await api.topUp(accountId, checked.value);
      setNotice({
        key: "op.topup.done",
        values: { amount: rub(Number(checked.value)), id: account.id, balance: rub(account.balance) },
      });
      setAmount("");
      setTouched(false);
      onDone();
    });
  };

  return (
    <section class="card" aria-labelledby="topup-heading">
      <h2 id="topup-heading">{t("op.topup")}</h2>
      <form class="form" method="post" onSubmit={submit} noValidate>
        <Field label={t("op.topup.account")}>
          {(control) => (
            <select
              {...control}
              value={accountId}
              onChange={(event) => setAccountId(event.currentTarget.value)}
            >
              {accounts.map((account) => (
                <option key={account.id} value={account.id}>
                  {account.id}
                  {account.name !== account.id ? ` — ${account.name}` : ""}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label={t("op.topup.amount")}
          help={t("op.topup.help")}
          problem={touched && !checked.ok ? checked.problem : undefined}
        >
          {(control) => (
            <RublesInput
              control={control}
              placeholder="1000"
              value={amount}
              onValue={setAmount}
              onBlur={onLeft(() => amount !== "" && setTouched(true))}
            />
          )}
        </Field>
        {error !== null && <ErrorNote error={error} />}
        {notice && <Status>{t(notice.key, notice.values)}</Status>}
        <div class="actions">
          <button type="submit" disabled={busy || accounts.length === 0}>
            {t("op.topup.submit")}
          </button>
        </div>
      </form>
    </section>
  );
}

function NewAccountForm({ onDone }: { onDone(): void }) {
  const { t } = useUi();
  const [form, setForm] = useState({ id: "", name: "", balance: "" });
  const [touched, setTouched] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const id = checkAccountId(form.id);
  const name = form.name.trim() === "" ? null : checkName(form.name);
  const balance = form.balance.trim() === "" ? null : checkAmount(form.balance, false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    setNotice(null);
    if (!id.ok || (name && !name.ok) || (balance && !balance.ok)) return clearError();
    await run(async () => {
      const account = await api.createAccount({
        id: id.value,
        ...(name?.ok ? { name: name.value } : {}),
        ...(balance?.ok ? { balance: balance.value } : {}),
      });
      setNotice(account.id);
      setForm({ id: "", name: "", balance: "" });
      setTouched(false);
      onDone();
    });
  };

  return (
    <section class="card" aria-labelledby="new-account-heading">
      <h2 id="new-account-heading">{t("op.create")}</h2>
      <form class="form" method="post" onSubmit={submit} noValidate>
        <Field label={t("op.create.id")} problem={touched && !id.ok ? id.problem : undefined}>
          {(control) => (
            <input
              {...control}
              type="text"
              autoComplete="off"
              spellcheck={false}
              placeholder="acme"
              value={form.id}
              onInput={(event) => setForm({ ...form, id: event.currentTarget.value })}
            />
          )}
        </Field>
        <Field label={t("op.create.name")} problem={touched && name && !name.ok ? name.problem : undefined}>
          {(control) => (
            <input
              {...control}
              type="text"
              autoComplete="off"
              value={form.name}
              onInput={(event) => setForm({ ...form, name: event.currentTarget.value })}
            />
          )}
        </Field>
        <Field
          label={t("op.create.balance")}
          problem={touched && balance && !balance.ok ? balance.problem : undefined}
        >
          {(control) => (
            <RublesInput
              control={control}
              placeholder="0"
              value={form.balance}
              onValue={(balance) => setForm({ ...form, balance })}
            />
          )}
        </Field>
        {error !== null && <ErrorNote error={error} />}
        {notice && (
          <Status>
            {t("op.create.done", { id: notice })} {t("op.create.tokenHint", { id: notice })}
          </Status>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {t("op.create.submit")}
          </button>
        </div>
      </form>
    </section>
  );
}

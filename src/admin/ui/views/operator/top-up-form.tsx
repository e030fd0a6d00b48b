// The operator's top-up of an account's balance.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { Account } from "../../api/types.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { Field, onLeft, RublesInput } from "../../forms/field.js";
import { checkAmount } from "../../forms/validate.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey, Values } from "../../i18n/lookup.js";

type Notice = { key: MessageKey; values: Values };

export function TopUpForm({ accounts, onDone }: { accounts: Account[]; onDone(): void }) {
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

// The operator's form for a new account.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { Field, RublesInput } from "../../forms/field.js";
import { checkAccountId, checkAmount, checkName } from "../../forms/validate.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";

export function NewAccountForm({ onDone }: { onDone(): void }) {
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

// An account's own budgets (docs/billing.md, "Account budgets"): how it pays — prepaid, budgeted (its windows
// alone limit its keys; no balance needed) or both — and its day, week and month windows, shared by all its
// keys, each with what is spent and when it resets. Who may change them (the permission table's
// account.budgets) gets a form; everyone else sees the facts.

import { useState } from "preact/hooks";
import { BILLING_MODES, type BillingMode } from "../../../../core/budget-windows.js";
import { PERIODS, type Period } from "../../../../core/periods.js";
import { api } from "../../api/endpoints.js";
import type { Account } from "../../api/types.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { BillingTime } from "../../components/time.js";
import { Field, RublesInput } from "../../forms/field.js";
import { checkBudget } from "../../forms/validate.js";
import { useAction } from "../../hooks/use-action.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";

export function AccountBudgetsSection({
  account,
  onSaved,
}: {
  account: Account;
  onSaved(account: Account): void;
}) {
  const { t } = useUi();
  const { can } = useSession();
  return (
    <section aria-labelledby="budgets-heading" data-testid="account-budgets">
      <h2 id="budgets-heading">{t("budgets.title")}</h2>
      <p class="muted">{t("budgets.intro")}</p>
      <p data-testid="billing-mode">{t(`budgets.mode.${account.billing}`)}</p>
      <WindowsTable account={account} />
      {can("account.budgets", account.id) && <BudgetsForm account={account} onSaved={onSaved} />}
    </section>
  );
}

function WindowsTable({ account }: { account: Account }) {
  const { t, rub } = useUi();
  if (account.budgets.length === 0) return <p class="muted">{t("budgets.none")}</p>;
  return (
    <table data-testid="account-windows">
      <thead>
        <tr>
          <th scope="col">{t("budgets.period")}</th>
          <th scope="col">{t("budgets.amount")}</th>
          <th scope="col">{t("budgets.spent")}</th>
          <th scope="col">{t("budgets.remaining")}</th>
          <th scope="col">{t("budgets.resets")}</th>
        </tr>
      </thead>
      <tbody>
        {account.budgets.map((window) => (
          <tr key={window.period}>
            <td>{t(`budgets.per.${window.period}`)}</td>
            <td>{rub(window.amount)}</td>
            <td>{rub(window.spent)}</td>
            <td>{rub(window.remaining)}</td>
            <td>
              <BillingTime iso={window.resets_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function BudgetsForm({ account, onSaved }: { account: Account; onSaved(account: Account): void }) {
  const { t } = useUi();
  const initial = (period: Period) => {
    const window = account.budgets.find((w) => w.period === period);
    return window ? String(window.amount) : "";
  };
  const [billing, setBilling] = useState<BillingMode>(account.billing);
  const [amounts, setAmounts] = useState<Record<Period, string>>({
    day: initial("day"),
    week: initial("week"),
    month: initial("month"),
  });
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const checked = Object.fromEntries(
    PERIODS.map((period) => [period, checkBudget(amounts[period])]),
  ) as Record<Period, ReturnType<typeof checkBudget>>;
  const windows = PERIODS.flatMap((period) => {
    const verdict = checked[period];
    return verdict.ok && verdict.value !== null ? [{ period, amount: verdict.value }] : [];
  });
  const modeProblem = billing === "prepaid" ? windows.length > 0 : windows.length === 0;

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    setSaved(false);
    if (PERIODS.some((period) => !checked[period].ok) || modeProblem) return clearError();
    await run(async () => {
      onSaved(await api.setAccountBudgets(account.id, { billing, budgets: windows }));
      setSaved(true);
    });
  };

  return (
    <form class="card form" method="post" onSubmit={submit} noValidate data-testid="budgets-form">
      <Field label={t("budgets.billing")} help={t("budgets.billing.help")}>
        {(control) => (
          <select
            {...control}
            value={billing}
            onChange={(event) => {
              setSaved(false);
              setBilling(event.currentTarget.value as BillingMode);
            }}
          >
            {BILLING_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {t(`budgets.option.${mode}`)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div class="sharing-fields">
        {PERIODS.map((period) => {
          const verdict = checked[period];
          return (
            <Field
              key={period}
              label={t(`budgets.field.${period}`)}
              problem={touched && !verdict.ok ? verdict.problem : undefined}
            >
              {(control) => (
                <RublesInput
                  control={control}
                  value={amounts[period]}
                  placeholder={t("budgets.placeholder")}
                  onValue={(value) => {
                    setSaved(false);
                    setAmounts({ ...amounts, [period]: value });
                  }}
                />
              )}
            </Field>
          );
        })}
      </div>
      {touched && modeProblem && (
        <p class="problem" role="alert">
          {t(billing === "prepaid" ? "budgets.problem.prepaid" : "budgets.problem.needsWindow")}
        </p>
      )}
      {error !== null && <ErrorNote error={error} />}
      {saved && <Status>{t("budgets.saved")}</Status>}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? t("common.saving") : t("budgets.save")}
        </button>
      </div>
    </form>
  );
}

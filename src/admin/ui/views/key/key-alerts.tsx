// A key's budget alert thresholds: shown, changed, set back to the gateway's defaults or turned off.

import { useState } from "preact/hooks";
import { readThresholdList } from "../../../../core/thresholds.js";
import { api } from "../../api/endpoints.js";
import type { Key } from "../../api/types.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { Field } from "../../forms/field.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";

export function KeyAlerts({
  k,
  onSaved,
  canChange,
}: {
  k: Key;
  onSaved(key: Key): void;
  canChange: boolean;
}) {
  const { t } = useUi();
  const [text, setText] = useState((k.alert_at ?? []).join(", "));
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const thresholds = readThresholdList(text);
  // As for the key's other settings: a rotating or disabled key can still be changed, a revoked or expired one not.
  const active = canChange && (k.state === "active" || k.state === "rotating" || k.state === "disabled");

  const save = (alertAt: number[] | null) =>
    run(async () => {
      setSaved(false);
      const next = await api.setKeyAlerts(k.account_id, k.id, alertAt);
      setText((next.alert_at ?? []).join(", "));
      setSaved(true);
      onSaved(next);
    });

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (thresholds === null || thresholds.length === 0) return clearError();
    await save(thresholds);
  };

  return (
    <section aria-labelledby="key-alerts-heading">
      <h2 id="key-alerts-heading">{t("keyAlerts.title")}</h2>
      <p data-testid="key-thresholds">
        {k.alert_at === null
          ? t("keyAlerts.default")
          : k.alert_at.length === 0
            ? t("keyAlerts.off")
            : t("keyAlerts.current", { list: k.alert_at.join(", ") })}
      </p>
      {k.budgets.length === 0 && <p class="muted">{t("keyAlerts.noBudget")}</p>}
      {active && (
        <form class="card form" method="post" onSubmit={submit} noValidate>
          <Field
            label={t("keyAlerts.field")}
            help={t("keyAlerts.field.help")}
            problem={touched && (thresholds === null || thresholds.length === 0) ? "v.thresholds" : undefined}
          >
            {(control) => (
              <input
                {...control}
                type="text"
                inputMode="numeric"
                autoComplete="off"
                placeholder="80, 95, 100"
                value={text}
                onInput={(event) => {
                  setSaved(false);
                  setText(event.currentTarget.value);
                }}
              />
            )}
          </Field>
          {error !== null && <ErrorNote error={error} />}
          {saved && <Status>{t("alerts.saved")}</Status>}
          <div class="actions">
            <button type="submit" disabled={busy}>
              {t("keyAlerts.save")}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => save(null)}>
              {t("keyAlerts.useDefault")}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => save([])}>
              {t("keyAlerts.disable")}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

// The form that changes a key, prefilled from it; only what changed is sent.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { Key } from "../../api/types.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { type FormField, KeyFields } from "../../forms/key-fields.js";
import { checkKeyChanges, keyFormOf } from "../../forms/validate.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";

export function EditKey({ k, onSaved }: { k: Key; onSaved(key: Key): void }) {
  const { t } = useUi();
  const [form, setForm] = useState(() => keyFormOf(k));
  const [left, setLeft] = useState<Set<FormField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const [saved, setSaved] = useState(false);
  const checked = checkKeyChanges(k, form);
  const problems = checked.ok ? {} : checked.problems;

  const submit = async (event: Event) => {
    event.preventDefault();
    setSubmitted(true);
    setSaved(false);
    if (!checked.ok) return clearError();
    await run(async () => {
      const next = await api.updateKey(k.account_id, k.id, checked.body);
      setSaved(true);
      setSubmitted(false);
      onSaved(next);
    });
  };

  return (
    <form class="card form" method="post" onSubmit={submit} noValidate>
      <KeyFields
        form={form}
        problems={problems}
        shown={(field) => submitted || left.has(field)}
        editing={true}
        onChange={(next) => {
          setSaved(false);
          setForm(next);
        }}
        onLeave={(field) => setLeft((fields) => new Set(fields).add(field))}
      />
      {submitted && !checked.ok && (
        <p class="note error" role="alert">
          {checked.nothing ? t("v.nothing") : t("newKey.fix")}
        </p>
      )}
      {error !== null && <ErrorNote error={error} />}
      {saved && <Status>{t("key.saved")}</Status>}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? t("common.saving") : t("common.save")}
        </button>
      </div>
    </form>
  );
}

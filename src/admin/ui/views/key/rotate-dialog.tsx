// Rotating a key: a confirmation with the old value's grace period, then the new value shown this once.

import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { CreatedKey, Key } from "../../api/types.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { ErrorNote } from "../../components/notes.js";
import { SecretValue } from "../../components/secret-value.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";

/** The grace periods offered; the CLI and the admin API take any duration up to 7 days. */
const GRACES = ["0", "1h", "24h", "7d"] as const;

export function RotateDialog({
  k,
  onDone,
  onCancel,
}: {
  k: Key;
  onDone(rotated: CreatedKey): void;
  onCancel(): void;
}) {
  const { t } = useUi();
  const { busy, error, run } = useAction();
  const [grace, setGrace] = useState<(typeof GRACES)[number]>("0");
  const graceId = useId();
  const confirm = () => run(async () => onDone(await api.rotateKey(k.account_id, k.id, grace)));
  return (
    <ConfirmDialog
      title={t("rotate.title", { name: k.name })}
      confirm={t("rotate.confirm", { name: k.name })}
      working={t("common.saving")}
      danger={false}
      busy={busy}
      onConfirm={confirm}
      onCancel={onCancel}
    >
      <p>{t("rotate.body", { hint: k.hint })}</p>
      <label for={graceId}>{t("rotate.grace")}</label>
      <select
        id={graceId}
        value={grace}
        onChange={(event) => setGrace(event.currentTarget.value as (typeof GRACES)[number])}
      >
        {GRACES.map((value) => (
          <option key={value} value={value}>
            {t(`rotate.grace.${value}` as MessageKey)}
          </option>
        ))}
      </select>
      {error !== null && <ErrorNote error={error} />}
    </ConfirmDialog>
  );
}

/** The rotated key's new value, until the person says it is saved. */
export function RotatedPanel({ rotated, onDismiss }: { rotated: CreatedKey; onDismiss(): void }) {
  const { t } = useUi();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="card created" aria-labelledby="rotated-heading">
      <h2 id="rotated-heading" ref={heading} tabIndex={-1}>
        {t("rotate.doneTitle", { name: rotated.name })}
      </h2>
      <SecretValue value={rotated.key} />
      <div class="actions">
        <button type="button" onClick={onDismiss}>
          {t("rotate.dismiss")}
        </button>
      </div>
    </section>
  );
}

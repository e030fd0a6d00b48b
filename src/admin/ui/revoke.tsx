// Revoking a key, after a confirmation that names it.

import { api, type Key } from "./api.js";
import { ConfirmDialog, ErrorNote } from "./components.js";
import { useUi } from "./context.js";
import { useAction } from "./use-action.js";

export function RevokeDialog({ k, onDone, onCancel }: { k: Key; onDone(key: Key): void; onCancel(): void }) {
  const { t } = useUi();
  const { busy, error, run } = useAction();
  const confirm = () => run(async () => onDone(await api.revokeKey(k.account_id, k.id)));
  return (
    <ConfirmDialog
      title={t("revoke.title", { name: k.name })}
      confirm={t("revoke.confirm", { name: k.name })}
      busy={busy}
      onConfirm={confirm}
      onCancel={onCancel}
    >
      <p>{t("revoke.body", { id: k.id, hint: k.hint })}</p>
      {error !== null && <ErrorNote error={error} />}
    </ConfirmDialog>
  );
}

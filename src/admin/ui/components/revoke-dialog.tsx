// Revoking a key, after a confirmation that names it.

import { api } from "../api/endpoints.js";
import type { Key } from "../api/types.js";
import { useAction } from "../hooks/use-action.js";
import { useUi } from "../hooks/use-ui.js";
import { ConfirmDialog } from "./confirm-dialog.js";
import { ErrorNote } from "./notes.js";

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

// A key's state as a coloured badge, in the keys table and on the key's page.

import type { Key } from "../api/types.js";
import { useUi } from "../hooks/use-ui.js";

/** The key's state in a word; a revoked key's date is in the badge's title and on the key's page. */
export function StateBadge({ k }: { k: Key }) {
  const { t, instant } = useUi();
  return (
    <span
      class={`badge ${k.state}`}
      title={
        k.state === "revoked" && k.revoked_at
          ? t("keys.revokedAt", { date: instant(k.revoked_at) })
          : undefined
      }
    >
      {t(`keys.state.${k.state}`)}
    </span>
  );
}

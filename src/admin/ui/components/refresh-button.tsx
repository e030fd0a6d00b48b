// The button that loads a view's data again.

import type { Loaded } from "../hooks/use-load.js";
import { useUi } from "../hooks/use-ui.js";

/** The button that loads a view's data again; busy while it loads. */
export function RefreshButton({ loaded }: { loaded: Pick<Loaded<unknown>, "reload" | "loading"> }) {
  const { t } = useUi();
  return (
    <button type="button" class="secondary" onClick={loaded.reload} aria-busy={loaded.loading}>
      {t("common.refresh")}
    </button>
  );
}

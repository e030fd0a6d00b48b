// What a view says about its data or an action: loading, an error (as the gateway said it: its messages are
// written for people), a success, and a load that went wrong.

import type { ComponentChildren } from "preact";
import { ApiError } from "../api/client.js";
import type { Loaded } from "../hooks/use-load.js";
import { useUi } from "../hooks/use-ui.js";

export function Loading() {
  const { t } = useUi();
  return (
    <p class="muted" role="status">
      {t("common.loading")}
    </p>
  );
}

/** What went wrong, as the gateway said it (its messages are written for people). */
export function errorText(error: unknown, t: ReturnType<typeof useUi>["t"]): string {
  if (error instanceof ApiError) return error.status === 0 ? t("error.network") : error.message;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorNote({ error }: { error: unknown }) {
  const { t } = useUi();
  return (
    <p class="note error" role="alert">
      <strong>{t("common.error")}:</strong> {errorText(error, t)}
    </p>
  );
}

export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p class="note success" role="status">
      {children}
    </p>
  );
}

/** A view's load that went wrong (shown even over older data), or a loading note while there is no data. */
export function LoadProblem({ loaded }: { loaded: Pick<Loaded<unknown>, "data" | "error"> }) {
  if (loaded.error !== undefined) return <ErrorNote error={loaded.error} />;
  return loaded.data === undefined ? <Loading /> : null;
}

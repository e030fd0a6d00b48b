// Signing in with a legacy token (the operator's admin token or an account's dashboard token, or a person's
// API token), for deployments that still use them. The token is checked with GET /me and kept in
// sessionStorage only once accepted; the form posts nowhere (and its field has no name), so the token can
// never end up in a URL.

import { useState } from "preact/hooks";
import { ApiError } from "../../api/client.js";
import { api } from "../../api/endpoints.js";
import { storeToken } from "../../api/token.js";
import type { Me } from "../../api/types.js";
import { ErrorNote } from "../../components/notes.js";
import { Field } from "../../forms/field.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";

export function TokenSignIn({ onSignedIn }: { onSignedIn(me: Me): void }) {
  const { t } = useUi();
  const [token, setToken] = useState("");
  const { busy, error, run, clearError } = useAction();
  const [problem, setProblem] = useState<MessageKey | undefined>(undefined);
  const [refusal, setRefusal] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = token.trim();
    setRefusal(null);
    if (value === "") {
      clearError();
      setProblem("login.empty");
      return;
    }
    setProblem(undefined);
    await run(async () => {
      try {
        const me = await api.me(value);
        storeToken(value);
        setToken("");
        onSignedIn(me);
      } catch (failure) {
        // A wrong token is the person's mistake, shown at the field; anything else is an error.
        if (!(failure instanceof ApiError && failure.status === 401)) throw failure;
        setRefusal(failure.message);
      }
    });
  };

  return (
    <form class="form" method="post" onSubmit={submit} noValidate>
      <p>{t("login.intro")}</p>
      <Field label={t("login.token")} problem={problem}>
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="off"
            autoCapitalize="off"
            spellcheck={false}
            value={token}
            onInput={(event) => setToken(event.currentTarget.value)}
          />
        )}
      </Field>
      {refusal !== null && (
        <p class="note error" role="alert">
          <strong>{t("login.wrong")}</strong> <span class="muted">{refusal}</span>
        </p>
      )}
      {error !== null && <ErrorNote error={error} />}
      <button type="submit" disabled={busy}>
        {busy ? t("login.checking") : t("login.submit")}
      </button>
    </form>
  );
}

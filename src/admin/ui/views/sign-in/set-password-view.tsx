// A set-password link (#/set-password/<token>, printed by `users create` or `users reset-password`): the
// person chooses a password — the rules shown, the server's refusals explained — and is signed in. The token
// leaves the address as soon as the page has it.

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, rememberCsrfToken } from "../../api/client.js";
import { api } from "../../api/endpoints.js";
import type { Me } from "../../api/types.js";
import { ErrorNote, LoadProblem } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { NewPasswordFields } from "./new-password-fields.js";
import {
  linkProblem,
  type NewPassword,
  newPasswordProblems,
  weakPasswordReason,
} from "./sign-in-problems.js";

export function SetPasswordView({ token, onSignedIn }: { token: string | null; onSignedIn(me: Me): void }) {
  const { t } = useUi();
  // The link's token stays in this view only: not in the address bar, history or a bookmark.
  const kept = useRef(token);
  useEffect(() => history.replaceState(null, "", "#/set-password"), []);
  const loaded = useLoad(() => api.providers(), "providers");
  const [value, setValue] = useState<NewPassword>({ password: "", repeat: "" });
  const [problems, setProblems] = useState<{ password?: MessageKey; repeat?: MessageKey }>({});
  const [refused, setRefused] = useState<MessageKey | null>(null);
  const { busy, error, run, clearError } = useAction();
  const ways = loaded.data;

  const submit = async (event: Event) => {
    event.preventDefault();
    const link = kept.current;
    if (!ways || link === null) return;
    const found = newPasswordProblems(value, ways.min_password_length);
    setProblems(found);
    setRefused(null);
    if (Object.keys(found).length > 0) {
      clearError();
      return;
    }
    await run(async () => {
      try {
        const signedIn = await api.setPasswordWithLink(link, value.password);
        rememberCsrfToken(signedIn.csrf_token);
        onSignedIn(await api.me());
        location.hash = "#/";
      } catch (failure) {
        if (failure instanceof ApiError && failure.code === "weak_password") {
          setProblems({ password: weakPasswordReason(value.password, ways.min_password_length) });
          return;
        }
        const problem = linkProblem(failure);
        if (problem === null) throw failure;
        setRefused(problem);
      }
    });
  };

  return (
    <div class="login">
      <PageTitle title={t("setPassword.title")} />
      <LoadProblem loaded={loaded} />
      {kept.current === null && (
        <p class="note error" role="alert">
          {t("setPassword.missing")}
        </p>
      )}
      {ways && !ways.password && (
        <p class="note error" role="alert">
          {t("setPassword.off")}
        </p>
      )}
      {ways?.password && kept.current !== null && (
        <form class="form" method="post" onSubmit={submit} noValidate>
          <p>{t("setPassword.intro")}</p>
          <NewPasswordFields
            value={value}
            onValue={setValue}
            minLength={ways.min_password_length}
            problems={problems}
          />
          {refused !== null && (
            <p class="note error" role="alert">
              {t(refused)}
            </p>
          )}
          {error !== null && <ErrorNote error={error} />}
          <button type="submit" disabled={busy}>
            {busy ? t("common.saving") : t("setPassword.submit")}
          </button>
        </form>
      )}
    </div>
  );
}

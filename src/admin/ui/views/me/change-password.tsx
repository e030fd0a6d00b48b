// Changing a local password: the current one (checked as a sign-in is, attempt limits included), the new one
// twice with the rules shown; the person's other sessions end.

import { useState } from "preact/hooks";
import { ApiError } from "../../api/client.js";
import { api } from "../../api/endpoints.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { Field } from "../../forms/field.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { NewPasswordFields } from "../sign-in/new-password-fields.js";
import {
  type NewPassword,
  newPasswordProblems,
  passwordProblem,
  weakPasswordReason,
} from "../sign-in/sign-in-problems.js";

export function ChangePassword() {
  const { t, lang } = useUi();
  const ways = useLoad(() => api.providers(), "providers");
  const [current, setCurrent] = useState("");
  const [value, setValue] = useState<NewPassword>({ password: "", repeat: "" });
  const [problems, setProblems] = useState<{
    current?: MessageKey;
    password?: MessageKey;
    repeat?: MessageKey;
  }>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [changed, setChanged] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const minLength = ways.data?.min_password_length ?? 0;

  const submit = async (event: Event) => {
    event.preventDefault();
    setChanged(false);
    setRefusal(null);
    const found = {
      ...(current === "" && { current: "signIn.passwordEmpty" as const }),
      ...newPasswordProblems(value, minLength),
    };
    setProblems(found);
    if (Object.keys(found).length > 0) {
      clearError();
      return;
    }
    await run(async () => {
      try {
        await api.changeMyPassword(current, value.password);
        setCurrent("");
        setValue({ password: "", repeat: "" });
        setChanged(true);
      } catch (failure) {
        if (failure instanceof ApiError && failure.code === "weak_password") {
          setProblems({ password: weakPasswordReason(value.password, minLength) });
          return;
        }
        const sentence =
          failure instanceof ApiError && failure.code === "sign_in_failed"
            ? t("me.password.wrongCurrent")
            : passwordProblem(failure, lang);
        if (sentence === null) throw failure;
        setRefusal(sentence);
      }
    });
  };

  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">{t("me.password")}</h2>
      <LoadProblem loaded={ways} />
      {changed && <Status>{t("me.password.changed")}</Status>}
      {ways.data && (
        <form class="card form" method="post" onSubmit={submit} noValidate>
          <Field label={t("me.password.current")} problem={problems.current}>
            {(control) => (
              <input
                {...control}
                type="password"
                autoComplete="current-password"
                value={current}
                onInput={(event) => setCurrent(event.currentTarget.value)}
              />
            )}
          </Field>
          <NewPasswordFields value={value} onValue={setValue} minLength={minLength} problems={problems} />
          {refusal !== null && (
            <p class="note error" role="alert">
              {refusal}
            </p>
          )}
          {error !== null && <ErrorNote error={error} />}
          <button type="submit" disabled={busy}>
            {busy ? t("common.saving") : t("me.password.submit")}
          </button>
        </form>
      )}
    </section>
  );
}

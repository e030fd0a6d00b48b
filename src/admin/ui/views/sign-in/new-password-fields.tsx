// A new password, typed twice, with the rules shown before anyone types (at least N characters, none of the
// most common passwords) and each problem at its field: too short, the two different, or — after the server
// refused it — too common. Used by the invitation, the set-password link and "my account".

import { Field } from "../../forms/field.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import type { NewPassword } from "./sign-in-problems.js";

export function NewPasswordFields({
  value,
  onValue,
  minLength,
  problems,
}: {
  value: NewPassword;
  onValue(value: NewPassword): void;
  minLength: number;
  problems: { password?: MessageKey; repeat?: MessageKey };
}) {
  const { t } = useUi();
  return (
    <>
      <Field
        label={t("password.new")}
        help={t("password.rules", { min: minLength })}
        problem={problems.password}
      >
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="new-password"
            value={value.password}
            onInput={(event) => onValue({ ...value, password: event.currentTarget.value })}
          />
        )}
      </Field>
      <Field label={t("password.repeat")} problem={problems.repeat}>
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="new-password"
            value={value.repeat}
            onInput={(event) => onValue({ ...value, repeat: event.currentTarget.value })}
          />
        )}
      </Field>
    </>
  );
}

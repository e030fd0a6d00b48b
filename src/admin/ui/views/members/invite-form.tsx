// Inviting a person into an account by e-mail with a role: the answer's one-time link shown once, to copy and
// send, with when it expires (it works once; the gateway keeps only its hash).

import { useRef, useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { AccountRole, CreatedInvitation } from "../../api/types.js";
import { ErrorNote } from "../../components/notes.js";
import { SecretValue } from "../../components/secret-value.js";
import { TimeMessage } from "../../components/time.js";
import { Field } from "../../forms/field.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { ROLES } from "./members-table.js";

export function InviteForm({ accountId, onInvited }: { accountId: string; onInvited(): void }) {
  const { t, instant } = useUi();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<AccountRole>("member");
  const [problem, setProblem] = useState<MessageKey | undefined>(undefined);
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const { busy, error, run, clearError } = useAction();
  const heading = useRef<HTMLHeadingElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = email.trim();
    // The server judges the address; this only catches what cannot be one.
    if (!/^[^\s@]+@[^\s@]+$/.test(value)) {
      clearError();
      setProblem("invite.form.emailWrong");
      return;
    }
    setProblem(undefined);
    await run(async () => {
      setCreated(await api.invite(accountId, value, role));
      setEmail("");
      onInvited();
      requestAnimationFrame(() => heading.current?.focus());
    });
  };

  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading" ref={heading} tabIndex={-1}>
        {t("invite.form.title")}
      </h2>
      {created ? (
        <div class="card created" data-testid="invitation-link">
          <p>
            <TimeMessage
              message="invite.form.created"
              name="date"
              iso={created.expires_at}
              values={{ email: created.email, role: t(`role.${created.role}` as MessageKey) }}
            />
          </p>
          <SecretValue
            value={created.url}
            label={t("invite.form.link")}
            warning={t("invite.form.once", { date: instant(created.expires_at) })}
          />
          <div class="actions">
            <button type="button" onClick={() => setCreated(null)}>
              {t("invite.form.done")}
            </button>
          </div>
        </div>
      ) : (
        <form class="card form inline-form" method="post" onSubmit={submit} noValidate>
          <Field label={t("invite.form.email")} problem={problem}>
            {(control) => (
              <input
                {...control}
                type="email"
                autoComplete="off"
                spellcheck={false}
                value={email}
                onInput={(event) => setEmail(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label={t("invite.form.role")} help={t("invite.form.roleHelp")}>
            {(control) => (
              <select
                {...control}
                value={role}
                onChange={(event) => setRole(event.currentTarget.value as AccountRole)}
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {t(`role.${r}` as MessageKey)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {error !== null && <ErrorNote error={error} />}
          <button type="submit" disabled={busy}>
            {busy ? t("invite.form.sending") : t("invite.form.submit")}
          </button>
        </form>
      )}
    </section>
  );
}

// Creating a key: the form, checked in the page with the server's rules, then the key's value shown this
// once with a copy button. The value lives only in this view's state and is gone when the view is left.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { CreatedKey } from "../../api/types.js";
import { ErrorNote } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { SecretValue } from "../../components/secret-value.js";
import { type FormField, KeyFields } from "../../forms/key-fields.js";
import { checkKeyForm, type KeyForm } from "../../forms/validate.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import { href } from "../../route.js";

const EMPTY: KeyForm = {
  name: "",
  budgets: { day: "", week: "", month: "" },
  ttl: "",
  models: "",
  logBodies: true,
  rpm: "",
  tpm: "",
  maxParallel: "",
};

export function NewKeyView({ accountId }: { accountId: string }) {
  const { t } = useUi();
  const [form, setForm] = useState<KeyForm>(EMPTY);
  const [left, setLeft] = useState<Set<FormField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const { busy, error, run, clearError } = useAction();
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const checked = checkKeyForm(form);
  const problems = checked.ok ? {} : checked.problems;
  const title = t("newKey.title", { id: accountId });

  const submit = async (event: Event) => {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok) {
      clearError();
      // Take the person to the first field to fix.
      requestAnimationFrame(() =>
        formRef.current?.querySelector<HTMLElement>("[aria-invalid=true]")?.focus(),
      );
      return;
    }
    await run(async () => setCreated(await api.createKey(accountId, checked.body)));
  };

  return (
    <>
      <p class="crumbs">
        <a href={href({ name: "account", accountId })}>← {t("account.title", { id: accountId })}</a>
      </p>
      <PageTitle title={title} />
      {created ? (
        <CreatedKeyPanel created={created} />
      ) : (
        <form ref={formRef} class="card form" method="post" onSubmit={submit} noValidate>
          <KeyFields
            form={form}
            problems={problems}
            shown={(field) => submitted || left.has(field)}
            editing={false}
            onChange={(next) => setForm(next)}
            onLeave={(field) => setLeft((fields) => new Set(fields).add(field))}
          />
          {submitted && !checked.ok && (
            <p class="note error" role="alert">
              {t("newKey.fix")}
            </p>
          )}
          {error !== null && <ErrorNote error={error} />}
          <div class="actions">
            <button type="submit" disabled={busy}>
              {busy ? t("newKey.creating") : t("newKey.submit")}
            </button>
            <a class="button secondary" href={href({ name: "account", accountId })}>
              {t("common.cancel")}
            </a>
          </div>
        </form>
      )}
    </>
  );
}

function CreatedKeyPanel({ created }: { created: CreatedKey }) {
  const { t } = useUi();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="card created" aria-labelledby="created-heading">
      <h2 id="created-heading" ref={heading} tabIndex={-1}>
        {t("created.title", { name: created.name })}
      </h2>
      <SecretValue value={created.key} />
      <div class="actions">
        <a class="button" href={href({ name: "account", accountId: created.account_id })}>
          {t("created.done")}
        </a>
        <a
          class="button secondary"
          href={href({ name: "key", accountId: created.account_id, keyId: created.id })}
        >
          {t("created.open")}
        </a>
      </div>
    </section>
  );
}

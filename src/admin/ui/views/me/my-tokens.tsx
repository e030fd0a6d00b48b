// The signed-in person's API tokens for automation: name, role and account, expiry, last use; made with a
// role they hold (token-scopes.ts) and shown once, to copy; revoked after a confirmation (it stops at once).

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { ApiToken, CreatedApiToken } from "../../api/types.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { SecretValue } from "../../components/secret-value.js";
import { Time } from "../../components/time.js";
import { Field } from "../../forms/field.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { tokenScopes } from "./token-scopes.js";

type Translate = ReturnType<typeof useUi>["t"];

function scopeText(t: Translate, role: string, accountId: string | null): string {
  const name = t(`role.${role}` as MessageKey);
  return accountId === null ? name : t("me.tokens.inAccount", { role: name, id: accountId });
}

export function MyTokens() {
  const { t } = useUi();
  const loaded = useLoad(() => api.myTokens(), "my-tokens");
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const [done, setDone] = useState<string | null>(null);

  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">{t("me.tokens")}</h2>
      <p class="muted">{t("me.tokens.intro")}</p>
      {done !== null && <Status>{done}</Status>}
      <LoadProblem loaded={loaded} />
      {loaded.data &&
        (loaded.data.tokens.length === 0 ? (
          <p class="muted">{t("me.tokens.none")}</p>
        ) : (
          <div class="table-wrap">
            <table class="tokens">
              <thead>
                <tr>
                  <th scope="col">{t("keys.col.name")}</th>
                  <th scope="col">{t("me.tokens.col.role")}</th>
                  <th scope="col">{t("keys.col.expires")}</th>
                  <th scope="col">{t("me.tokens.col.used")}</th>
                  <th scope="col">{t("keys.col.actions")}</th>
                </tr>
              </thead>
              <tbody>
                {loaded.data.tokens.map((token) => (
                  <tr key={token.id} data-token-id={token.id}>
                    <th scope="row">
                      {token.name} <span class="muted small">…{token.hint}</span>
                    </th>
                    <td>{scopeText(t, token.role, token.account_id)}</td>
                    <td class="nowrap">
                      {token.expired ? (
                        <span class="badge expired">{t("keys.state.expired")}</span>
                      ) : (
                        <Time iso={token.expires_at} />
                      )}
                    </td>
                    <td class="nowrap">
                      {token.last_used_at ? <Time iso={token.last_used_at} /> : t("common.never")}
                    </td>
                    <td>
                      <button
                        type="button"
                        class="danger small"
                        aria-label={t("me.tokens.revokeOne", { name: token.name })}
                        onClick={() => setRevoking(token)}
                      >
                        {t("keys.revoke")}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {created ? (
        <div class="card created" data-testid="created-token">
          <h3>{t("me.tokens.created", { name: created.name })}</h3>
          <SecretValue value={created.token} label={t("me.tokens.value")} warning={t("me.tokens.once")} />
          <div class="actions">
            <button type="button" onClick={() => setCreated(null)}>
              {t("rotate.dismiss")}
            </button>
          </div>
        </div>
      ) : (
        <NewTokenForm
          onCreated={(token) => {
            setDone(null);
            setCreated(token);
            loaded.reload();
          }}
        />
      )}
      {revoking && (
        <RevokeToken
          token={revoking}
          onCancel={() => setRevoking(null)}
          onDone={() => {
            setDone(t("me.tokens.revoked", { name: revoking.name }));
            setRevoking(null);
            loaded.reload();
          }}
        />
      )}
    </section>
  );
}

function NewTokenForm({ onCreated }: { onCreated(token: CreatedApiToken): void }) {
  const { t } = useUi();
  const { me } = useSession();
  const scopes = tokenScopes(me);
  const [name, setName] = useState("");
  const [scope, setScope] = useState(scopes[0]?.value ?? "");
  const [days, setDays] = useState("");
  const [problems, setProblems] = useState<{ name?: MessageKey; days?: MessageKey }>({});
  const { busy, error, run, clearError } = useAction();

  if (scopes.length === 0) return <p class="muted">{t("me.tokens.noRole")}</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = scopes.find((s) => s.value === scope) ?? scopes[0];
    const found = {
      ...(name.trim() === "" && { name: "v.name.length" as const }),
      ...(days.trim() !== "" &&
        !/^[1-9]\d{0,4}$/.test(days.trim()) && { days: "me.tokens.daysWrong" as const }),
    };
    setProblems(found);
    if (Object.keys(found).length > 0 || !chosen) {
      clearError();
      return;
    }
    await run(async () => {
      const token = await api.createMyToken({
        name: name.trim(),
        role: chosen.role,
        ...(chosen.accountId !== null && { account_id: chosen.accountId }),
        ...(days.trim() !== "" && { days: Number(days.trim()) }),
      });
      setName("");
      setDays("");
      onCreated(token);
    });
  };

  return (
    <form class="card form" method="post" onSubmit={submit} noValidate>
      <h3>{t("me.tokens.new")}</h3>
      <Field label={t("keys.col.name")} help={t("me.tokens.nameHelp")} problem={problems.name}>
        {(control) => (
          <input
            {...control}
            type="text"
            autoComplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t("me.tokens.col.role")} help={t("me.tokens.roleHelp")}>
        {(control) => (
          <select {...control} value={scope} onChange={(event) => setScope(event.currentTarget.value)}>
            {scopes.map((s) => (
              <option key={s.value} value={s.value}>
                {scopeText(t, s.role, s.accountId)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t("me.tokens.days")} help={t("me.tokens.daysHelp")} problem={problems.days}>
        {(control) => (
          <input
            {...control}
            type="text"
            inputMode="numeric"
            autoComplete="off"
            value={days}
            onInput={(event) => setDays(event.currentTarget.value)}
          />
        )}
      </Field>
      {error !== null && <ErrorNote error={error} />}
      <button type="submit" disabled={busy}>
        {busy ? t("newKey.creating") : t("me.tokens.create")}
      </button>
    </form>
  );
}

function RevokeToken({ token, onCancel, onDone }: { token: ApiToken; onCancel(): void; onDone(): void }) {
  const { t } = useUi();
  const { busy, error, run } = useAction();
  return (
    <ConfirmDialog
      title={t("me.tokens.revokeTitle", { name: token.name })}
      confirm={t("me.tokens.revokeOne", { name: token.name })}
      busy={busy}
      onConfirm={() =>
        run(async () => {
          await api.revokeMyToken(token.id);
          onDone();
        })
      }
      onCancel={onCancel}
    >
      <p>{t("me.tokens.revokeBody", { hint: token.hint })}</p>
      {error !== null && <ErrorNote error={error} />}
    </ConfirmDialog>
  );
}

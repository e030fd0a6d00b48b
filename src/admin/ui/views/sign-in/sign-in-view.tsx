// The sign-in page: a button for each identity provider (GET /auth/providers; the button goes to the
// provider with return_to = the page the person wanted), the e-mail and password form when local sign-in is
// on, and — secondary, behind a disclosure, for deployments that still use them — a legacy token. The
// provider flow's failures and the form's refusals are sentences a person can act on (sign-in-problems.ts).

import { useState } from "preact/hooks";
import { rememberCsrfToken } from "../../api/client.js";
import { api } from "../../api/endpoints.js";
import type { Me, Providers } from "../../api/types.js";
import { ErrorNote, LoadProblem } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { Field } from "../../forms/field.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { PUBLIC_ROUTES, parseRoute } from "../../route.js";
import { pendingInvitation } from "./pending-invitation.js";
import { passwordProblem, providerProblem } from "./sign-in-problems.js";
import { TokenSignIn } from "./token-sign-in.js";

/** Where a provider sends the browser back: the invitation waiting, else the page the person was on. */
function returnTo(): string {
  if (pendingInvitation() !== null) return "/#/invite";
  return PUBLIC_ROUTES.has(parseRoute(location.hash).name) ? "/" : `/${location.hash || "#/"}`;
}

export function SignInView({
  notice,
  error,
  provider,
  onSignedIn,
}: {
  /** Why the page is shown: the session ended, or the person signed out. */
  notice: MessageKey | null;
  /** The provider flow's failure, from the address. */
  error?: string;
  provider?: string;
  onSignedIn(me: Me): void;
}) {
  const { t } = useUi();
  const loaded = useLoad(() => api.providers(), "providers");
  const ways = loaded.data;
  const providerName = ways?.providers.find((p) => p.id === provider)?.name ?? provider ?? "";
  // Said once the providers are known, so that the sentence names the provider as the person knows it, not
  // by its id for a moment first (by its id only when the list cannot be had).
  const failure = error && !loaded.loading ? providerProblem(error, providerName) : null;
  // Without a provider or the form, the token is the only way in: shown open, as before people could sign in.
  const tokenOnly = ways !== undefined && ways.providers.length === 0 && !ways.password;

  return (
    <div class="login">
      <PageTitle title={t("login.title")} />
      {notice && (
        <p class="note info" role="status">
          {t(notice)}
        </p>
      )}
      {failure && (
        <p class="note error" role="alert">
          {t(failure.key, failure.values)}
        </p>
      )}
      <LoadProblem loaded={loaded} />
      {ways && ways.providers.length > 0 && (
        <section class="providers" aria-labelledby="providers-heading">
          <h2 id="providers-heading">{t("signIn.providers")}</h2>
          <ul class="provider-buttons">
            {ways.providers.map((p) => (
              <li key={p.id}>
                <a
                  class="button"
                  href={`${p.start_url}?return_to=${encodeURIComponent(returnTo())}`}
                  data-provider={p.id}
                >
                  {t("signIn.with", { provider: p.name })}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      {ways?.password && <PasswordForm ways={ways} onSignedIn={onSignedIn} />}
      {ways &&
        (tokenOnly ? (
          <TokenSignIn onSignedIn={onSignedIn} />
        ) : (
          <details class="token-sign-in">
            <summary>{t("signIn.withToken")}</summary>
            <TokenSignIn onSignedIn={onSignedIn} />
          </details>
        ))}
    </div>
  );
}

function PasswordForm({ ways, onSignedIn }: { ways: Providers; onSignedIn(me: Me): void }) {
  const { t, lang } = useUi();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [problems, setProblems] = useState<{ email?: MessageKey; password?: MessageKey }>({});
  const { busy, error, run, clearError } = useAction();
  const [refusal, setRefusal] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setRefusal(null);
    const found = {
      ...(email.trim() === "" && { email: "signIn.emailEmpty" as const }),
      ...(password === "" && { password: "signIn.passwordEmpty" as const }),
    };
    setProblems(found);
    if (Object.keys(found).length > 0) {
      clearError();
      return;
    }
    await run(async () => {
      try {
        const signedIn = await api.signInWithPassword(email.trim(), password);
        rememberCsrfToken(signedIn.csrf_token);
        setPassword("");
        onSignedIn(await api.me());
      } catch (failure) {
        const sentence = passwordProblem(failure, lang);
        if (sentence === null) throw failure;
        setRefusal(sentence);
      }
    });
  };

  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">
        {ways.providers.length > 0 ? t("signIn.passwordOr") : t("signIn.password")}
      </h2>
      <form class="form" method="post" onSubmit={submit} noValidate>
        <Field label={t("signIn.email")} problem={problems.email}>
          {(control) => (
            <input
              {...control}
              type="email"
              autoComplete="username"
              autoCapitalize="off"
              spellcheck={false}
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field label={t("signIn.passwordField")} problem={problems.password}>
          {(control) => (
            <input
              {...control}
              type="password"
              autoComplete="current-password"
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
          )}
        </Field>
        {refusal !== null && (
          <p class="note error" role="alert">
            {refusal}
          </p>
        )}
        {error !== null && <ErrorNote error={error} />}
        <button type="submit" disabled={busy}>
          {busy ? t("login.checking") : t("login.submit")}
        </button>
      </form>
    </section>
  );
}

// An invitation link (#/invite/<token>): what it invites to (previewed without taking it), then accepted —
// by the person signed in with the invited e-mail, or by someone new here with a name and a password (local
// sign-in on) — or, for a person who has a user here already, "sign in first": the token waits in the tab
// (pending-invitation.ts) and the page comes back to it after signing in. An e-mail an identity provider
// speaks for is accepted only by signing in with that provider: the page says so and offers that way alone.
// Its token leaves the address once the page has it.

import { useEffect, useState } from "preact/hooks";
import { ApiError, rememberCsrfToken } from "../../api/client.js";
import { api } from "../../api/endpoints.js";
import type { InvitationPreview, Me, Providers } from "../../api/types.js";
import { ErrorNote, LoadProblem } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { TimeMessage } from "../../components/time.js";
import { Field } from "../../forms/field.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useOptionalSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { NewPasswordFields } from "./new-password-fields.js";
import { forgetInvitation, keepInvitation, pendingInvitation } from "./pending-invitation.js";
import {
  linkProblem,
  type NewPassword,
  newPasswordProblems,
  weakPasswordReason,
} from "./sign-in-problems.js";

function load(token: string) {
  return Promise.all([api.previewInvitation(token), api.providers()]).then(([preview, ways]) => ({
    preview,
    ways,
  }));
}

export function InviteView({
  token: fromRoute,
  onSignedIn,
}: {
  token: string | null;
  onSignedIn(me: Me): void;
}) {
  const { t } = useUi();
  const token = fromRoute ?? pendingInvitation();
  // The token is kept in the tab, not in the address bar, history or a bookmark.
  useEffect(() => {
    if (fromRoute !== null) {
      keepInvitation(fromRoute);
      history.replaceState(null, "", "#/invite");
    }
  }, [fromRoute]);
  const loaded = useLoad(() => (token === null ? Promise.reject(null) : load(token)), token ?? "");
  const problem = linkProblem(loaded.error);

  return (
    <div class="login">
      <PageTitle title={t("invite.title")} />
      {token === null ? (
        <p class="note error" role="alert">
          {t("invite.missing")}
        </p>
      ) : problem !== null ? (
        <p class="note error" role="alert">
          {t(problem)}
        </p>
      ) : (
        <LoadProblem loaded={loaded} />
      )}
      {token !== null && loaded.data && (
        <Invitation
          token={token}
          preview={loaded.data.preview}
          ways={loaded.data.ways}
          onSignedIn={onSignedIn}
        />
      )}
    </div>
  );
}

function Invitation({
  token,
  preview,
  ways,
  onSignedIn,
}: {
  token: string;
  preview: InvitationPreview;
  ways: Providers;
  onSignedIn(me: Me): void;
}) {
  const { t } = useUi();
  const session = useOptionalSession();
  const person = session?.me.user ?? null;
  const accept = useAction();

  const required = preview.provider;
  const throughRequired = required === null || session?.me.signed_in_with?.provider === required.id;

  const acceptSignedIn = () =>
    accept.run(async () => {
      await api.acceptInvitation(token);
      forgetInvitation();
      onSignedIn(await api.me());
      location.hash = `#/accounts/${encodeURIComponent(preview.account_id)}`;
    });

  return (
    <>
      <p data-testid="invitation">
        <TimeMessage
          message="invite.what"
          name="date"
          iso={preview.expires_at}
          values={{
            account: preview.account_name,
            id: preview.account_id,
            role: t(`role.${preview.role}` as MessageKey),
            email: preview.email,
          }}
        />
      </p>
      {required !== null && !(person && throughRequired) && (!person || person.email === preview.email) ? (
        <ThroughProvider token={token} provider={required} />
      ) : person && person.email === preview.email ? (
        <>
          <button type="button" onClick={acceptSignedIn} disabled={accept.busy}>
            {t("invite.accept")}
          </button>
          {accept.error !== null && <ErrorNote error={accept.error} />}
        </>
      ) : person ? (
        <>
          <p class="note warning" role="alert">
            {t("invite.otherPerson", { email: preview.email, me: person.email })}
          </p>
          <button type="button" class="secondary" onClick={() => session?.signOut()}>
            {t("invite.signOutFirst")}
          </button>
        </>
      ) : (
        <NewPerson token={token} preview={preview} ways={ways} onSignedIn={onSignedIn} />
      )}
    </>
  );
}

/** The provider the invitation's e-mail belongs to: signing in with it is the one way to accept. */
function ThroughProvider({
  token,
  provider,
}: {
  token: string;
  provider: NonNullable<InvitationPreview["provider"]>;
}) {
  const { t } = useUi();
  const signIn = () => {
    keepInvitation(token);
    location.assign(`${provider.start_url}?return_to=${encodeURIComponent("/#/invite")}`);
  };
  return (
    <>
      <p class="note info" role="status" data-testid="through-provider">
        {t("invite.throughProvider", { provider: provider.name })}
      </p>
      <button type="button" onClick={signIn}>
        {t("invite.signInWithProvider", { provider: provider.name })}
      </button>
    </>
  );
}

/** Someone not signed in: a new person sets a name and a password; a person known here signs in first. */
function NewPerson({
  token,
  preview,
  ways,
  onSignedIn,
}: {
  token: string;
  preview: InvitationPreview;
  ways: Providers;
  onSignedIn(me: Me): void;
}) {
  const { t } = useUi();
  const [name, setName] = useState("");
  const [value, setValue] = useState<NewPassword>({ password: "", repeat: "" });
  const [problems, setProblems] = useState<{ name?: MessageKey; password?: MessageKey; repeat?: MessageKey }>(
    {},
  );
  const [exists, setExists] = useState(false);
  const { busy, error, run, clearError } = useAction();

  const signInFirst = () => {
    keepInvitation(token);
    location.hash = "#/sign-in";
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const found = {
      ...(name.trim() === "" && { name: "invite.nameEmpty" as const }),
      ...newPasswordProblems(value, ways.min_password_length),
    };
    setProblems(found);
    if (Object.keys(found).length > 0) {
      clearError();
      return;
    }
    await run(async () => {
      try {
        const accepted = await api.acceptInvitation(token, { name: name.trim(), password: value.password });
        forgetInvitation();
        rememberCsrfToken(accepted.csrf_token);
        onSignedIn(await api.me());
        location.hash = `#/accounts/${encodeURIComponent(accepted.account_id)}`;
      } catch (failure) {
        if (failure instanceof ApiError && failure.code === "weak_password") {
          setProblems({ password: weakPasswordReason(value.password, ways.min_password_length) });
          return;
        }
        if (failure instanceof ApiError && failure.code === "user_exists") {
          setExists(true);
          return;
        }
        throw failure;
      }
    });
  };

  const signIn = (
    <button type="button" class="secondary" onClick={signInFirst}>
      {t("invite.signInFirst")}
    </button>
  );
  if (!ways.password || exists)
    return (
      <>
        <p class={exists ? "note warning" : undefined} role={exists ? "alert" : undefined}>
          {exists ? t("invite.exists", { email: preview.email }) : t("invite.providerOnly")}
        </p>
        {signIn}
      </>
    );
  return (
    <>
      <p>
        {t("invite.known")} {signIn}
      </p>
      <form class="form" method="post" onSubmit={submit} noValidate>
        <h2>{t("invite.new")}</h2>
        <p class="muted">
          {t("invite.email")} <strong>{preview.email}</strong>
        </p>
        <Field label={t("invite.name")} help={t("invite.name.help")} problem={problems.name}>
          {(control) => (
            <input
              {...control}
              type="text"
              autoComplete="name"
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <NewPasswordFields
          value={value}
          onValue={setValue}
          minLength={ways.min_password_length}
          problems={problems}
        />
        {error !== null && <ErrorNote error={error} />}
        <button type="submit" disabled={busy}>
          {busy ? t("invite.accepting") : t("invite.acceptNew")}
        </button>
      </form>
    </>
  );
}

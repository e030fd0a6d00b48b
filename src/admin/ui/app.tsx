// The dashboard's frame: language, sign-in state (the session cookie, or a legacy token in the tab), the
// header with the menus the person's role allows, and the hash router.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { can, homeOf } from "./api/abilities.js";
import { ApiError, onSessionEnded, rememberCsrfToken } from "./api/client.js";
import { api } from "./api/endpoints.js";
import { forgetToken, storedToken } from "./api/token.js";
import type { Me } from "./api/types.js";
import { AppHeader } from "./components/app-header.js";
import { ErrorNote, Loading } from "./components/notes.js";
import { PageTitle } from "./components/page-title.js";
import { useHashRoute } from "./hooks/use-hash-route.js";
import { type Session, SessionContext, useSession } from "./hooks/use-session.js";
import { makeUi, UiContext, useUi } from "./hooks/use-ui.js";
import { type Lang, type MessageKey, pickLang } from "./i18n/lookup.js";
import { href, PUBLIC_ROUTES, type Route } from "./route.js";
import { AccountView } from "./views/account/account-view.js";
import { KeyView } from "./views/key/key-view.js";
import { NewKeyView } from "./views/key/new-key-view.js";
import { MyAccountView } from "./views/me/my-account-view.js";
import { MembersView } from "./views/members/members-view.js";
import { OperatorView } from "./views/operator/operator-view.js";
import { PeopleView } from "./views/people/people-view.js";
import { InviteView } from "./views/sign-in/invite-view.js";
import { pendingInvitation } from "./views/sign-in/pending-invitation.js";
import { SetPasswordView } from "./views/sign-in/set-password-view.js";
import { SignInView } from "./views/sign-in/sign-in-view.js";

const LANG_KEY = "tunnel-gateway.lang";

function storedLang(): string | null {
  try {
    return localStorage.getItem(LANG_KEY);
  } catch {
    return null;
  }
}

/**
 * Who is signed in when the page opens: GET /auth/providers says whether the session cookie is live (it is
 * HttpOnly: no script reads it), so that a visitor who is not signed in meets no refused request; then GET
 * /me. A refused legacy token is forgotten.
 */
async function whoIsSignedIn(): Promise<{ me: Me | null; ended: boolean }> {
  const token = storedToken();
  const session = token === null ? (await api.providers()).session : "none";
  if (token === null && session !== "active") return { me: null, ended: session === "ended" };
  try {
    return { me: await api.whoIsSignedIn(), ended: false };
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
    forgetToken();
    return { me: null, ended: true };
  }
}

export function App() {
  const [lang, setLang] = useState<Lang>(() =>
    pickLang(storedLang(), navigator.languages ?? [navigator.language]),
  );
  const [me, setMe] = useState<Me | null>(null);
  const ui = useMemo(() => makeUi(lang, undefined, me?.timezone), [lang, me]);
  const [checking, setChecking] = useState(true);
  const [notice, setNotice] = useState<MessageKey | null>(null);
  const [bootError, setBootError] = useState<unknown>(null);
  const route = useHashRoute();
  const main = useRef<HTMLElement>(null);

  // A layout effect runs in the same task as the render that changed the words, so the page is never seen
  // (by a screen reader, or a test) in one language while its lang attribute names the other.
  useLayoutEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

  const signedIn = (next: Me) => {
    rememberCsrfToken(next.csrf_token);
    setMe(next);
  };

  useEffect(() => {
    // The session ended under the person (timed out, revoked elsewhere): the sign-in page, in place, so that
    // signing in again goes on where they were.
    onSessionEnded(() => {
      setMe(null);
      setNotice("login.expired");
    });
    whoIsSignedIn()
      .then(({ me: found, ended }) => {
        if (found) signedIn(found);
        else if (ended) setNotice("login.expired");
      }, setBootError)
      .finally(() => setChecking(false));
  }, []);

  const chooseLang = (next: Lang) => {
    setLang(next);
    try {
      localStorage.setItem(LANG_KEY, next);
    } catch {
      // The choice then lasts until the page is reloaded.
    }
  };

  const session = useMemo((): Session | null => {
    if (!me) return null;
    const signedOut = (message: MessageKey) => {
      forgetToken();
      rememberCsrfToken(null);
      setMe(null);
      setNotice(message);
      location.hash = "#/";
    };
    return {
      me,
      can: (action, accountId) => can(me, action, accountId),
      signOut() {
        // A legacy token is only forgotten; a session is ended at the gateway too (its cookie cleared).
        if (storedToken() !== null || me.credential !== "session") signedOut("login.signedOut");
        else
          api.signOut().then(
            () => signedOut("login.signedOut"),
            () => signedOut("login.signedOut"),
          );
      },
      async signOutEverywhere() {
        await api.signOutEverywhere();
        signedOut("login.signedOutEverywhere");
      },
      async refresh() {
        signedIn(await api.me());
      },
    };
  }, [me]);

  const onSignedIn = (next: Me) => {
    setNotice(null);
    setBootError(null);
    signedIn(next);
    if (route.name === "signIn") location.hash = pendingInvitation() !== null ? "#/invite" : "#/";
  };

  const page = () => {
    if (checking) return <Loading />;
    if (PUBLIC_ROUTES.has(route.name) && !(route.name === "signIn" && session))
      return <PublicView route={route} notice={notice} onSignedIn={onSignedIn} />;
    if (session) return <View route={route} me={session.me} />;
    return <SignInView notice={notice} onSignedIn={onSignedIn} />;
  };

  return (
    <UiContext.Provider value={ui}>
      <SessionContext.Provider value={session}>
        <AppHeader lang={lang} onLang={chooseLang} route={route} onSkip={() => main.current?.focus()} />
        <main id="main" ref={main} tabIndex={-1}>
          {bootError !== null && !session && <ErrorNote error={bootError} />}
          {page()}
        </main>
      </SessionContext.Provider>
    </UiContext.Provider>
  );
}

/** The pages anyone may open: sign-in (with the provider flow's failure) and the one-time links. */
function PublicView({
  route,
  notice,
  onSignedIn,
}: {
  route: Route;
  notice: MessageKey | null;
  onSignedIn(me: Me): void;
}) {
  switch (route.name) {
    case "invite":
      return <InviteView token={route.token} onSignedIn={onSignedIn} />;
    case "setPassword":
      return <SetPasswordView token={route.token} onSignedIn={onSignedIn} />;
    case "signIn":
      return (
        <SignInView notice={notice} error={route.error} provider={route.provider} onSignedIn={onSignedIn} />
      );
    default:
      return null;
  }
}

/** A page the credential may not see: said plainly, with the way back. */
function NotAllowed() {
  const { t } = useUi();
  return (
    <>
      <PageTitle title={t("nav.notAllowed")} />
      <p>{t("nav.notAllowedBody")}</p>
      <p>
        <a href={href({ name: "home" })}>{t("error.home")}</a>
      </p>
    </>
  );
}

/** A person signed in with no role anywhere yet (or no longer: a provider's group removed). */
function NoAccess() {
  const { t } = useUi();
  return (
    <>
      <PageTitle title={t("nav.noAccess")} />
      <p>{t("nav.noAccessBody")}</p>
      <p>
        <a href={href({ name: "myAccount" })}>{t("nav.me")}</a>
      </p>
    </>
  );
}

function View({ route, me }: { route: Route; me: Me }) {
  const { t } = useUi();
  const { can: allowed } = useSession();
  switch (route.name) {
    case "home":
    case "signIn": {
      const home = homeOf(me);
      if (home.name === "operator") return <OperatorView />;
      if (home.name === "account") return <AccountView key={home.accountId} accountId={home.accountId} />;
      return <NoAccess />;
    }
    case "operator":
      return allowed("overview.read") ? <OperatorView /> : <NotAllowed />;
    case "account":
      return allowed("account.read", route.accountId) ? (
        <AccountView key={route.accountId} accountId={route.accountId} />
      ) : (
        <NotAllowed />
      );
    case "newKey":
      return allowed("keys.write", route.accountId) ? (
        <NewKeyView key={route.accountId} accountId={route.accountId} />
      ) : (
        <NotAllowed />
      );
    case "key":
      return allowed("keys.read", route.accountId) ? (
        <KeyView key={`${route.accountId}/${route.keyId}`} accountId={route.accountId} keyId={route.keyId} />
      ) : (
        <NotAllowed />
      );
    case "members":
      return allowed("members.read", route.accountId) ? (
        <MembersView key={route.accountId} accountId={route.accountId} />
      ) : (
        <NotAllowed />
      );
    case "myAccount":
      return <MyAccountView />;
    case "people":
      return allowed("users.read") ? <PeopleView /> : <NotAllowed />;
    case "invite":
    case "setPassword":
      return null;
    case "notFound":
      return (
        <>
          <PageTitle title={t("error.notFound")} />
          <p>
            <a href={href({ name: "home" })}>{t("error.home")}</a>
          </p>
        </>
      );
  }
}

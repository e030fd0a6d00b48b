// The dashboard's frame: language, sign-in state, the header and the hash router.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, onSessionEnded } from "./api/client.js";
import { api } from "./api/endpoints.js";
import { forgetToken, storedToken } from "./api/token.js";
import type { Me } from "./api/types.js";
import { ErrorNote, Loading } from "./components/notes.js";
import { PageTitle } from "./components/page-title.js";
import { useHashRoute } from "./hooks/use-hash-route.js";
import { SessionContext } from "./hooks/use-session.js";
import { makeUi, UiContext, useUi } from "./hooks/use-ui.js";
import { type Lang, type MessageKey, pickLang } from "./i18n/lookup.js";
import { href, type Route } from "./route.js";
import { AccountView } from "./views/account/account-view.js";
import { KeyView } from "./views/key/key-view.js";
import { NewKeyView } from "./views/key/new-key-view.js";
import { LoginView } from "./views/login-view.js";
import { OperatorView } from "./views/operator/operator-view.js";

const LANG_KEY = "tunnel-gateway.lang";

function storedLang(): string | null {
  try {
    return localStorage.getItem(LANG_KEY);
  } catch {
    return null;
  }
}

export function App() {
  const [lang, setLang] = useState<Lang>(() =>
    pickLang(storedLang(), navigator.languages ?? [navigator.language]),
  );
  const [me, setMe] = useState<Me | null>(null);
  const ui = useMemo(() => makeUi(lang, undefined, me?.timezone), [lang, me]);
  const [checking, setChecking] = useState(() => storedToken() !== null);
  const [notice, setNotice] = useState<MessageKey | null>(null);
  const [bootError, setBootError] = useState<unknown>(null);
  const route = useHashRoute();
  const main = useRef<HTMLElement>(null);
  const { t } = ui;

  // A layout effect runs in the same task as the render that changed the words, so the page is never seen
  // (by a screen reader, or a test) in one language while its lang attribute names the other.
  useLayoutEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

  useEffect(() => {
    onSessionEnded(() => {
      setMe(null);
      setNotice("login.expired");
    });
    if (storedToken() === null) return;
    api
      .me()
      .then(setMe, (error: unknown) => {
        if (!(error instanceof ApiError && error.status === 401)) setBootError(error);
      })
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

  const session = useMemo(
    () =>
      me && {
        me,
        signOut() {
          forgetToken();
          setMe(null);
          setNotice("login.signedOut");
          location.hash = "#/";
        },
      },
    [me],
  );

  return (
    <UiContext.Provider value={ui}>
      <SessionContext.Provider value={session}>
        <button type="button" class="skip secondary" onClick={() => main.current?.focus()}>
          {t("nav.skip")}
        </button>
        <header class="top">
          <div class="inner">
            <a class="brand" href={href({ name: "home" })}>
              <span class="logo" aria-hidden="true">
                ₽
              </span>
              {t("app.name")} <span class="muted">· {t("app.dashboard")}</span>
            </a>
            {session?.me.role === "admin" && (
              <nav aria-label={t("app.dashboard")}>
                <a href={href({ name: "operator" })}>{t("nav.accounts")}</a>
              </nav>
            )}
            <span class="spacer" />
            {session && (
              <span class="who">
                {t("nav.signedInAs")}{" "}
                <strong>
                  {session.me.role === "admin"
                    ? t("role.admin")
                    : t("role.account", { id: session.me.account_id ?? "" })}
                </strong>
              </span>
            )}
            <label class="lang">
              <span>{t("nav.language")}</span>
              <select value={lang} onChange={(event) => chooseLang(event.currentTarget.value as Lang)}>
                <option value="ru" lang="ru">
                  Русский
                </option>
                <option value="en" lang="en">
                  English
                </option>
              </select>
            </label>
            {session && (
              <button type="button" class="secondary small" onClick={session.signOut}>
                {t("nav.logout")}
              </button>
            )}
          </div>
        </header>
        <main id="main" ref={main} tabIndex={-1}>
          {bootError !== null && !session && <ErrorNote error={bootError} />}
          {checking && !session ? (
            <Loading />
          ) : session ? (
            <View route={route} me={session.me} />
          ) : (
            <LoginView
              notice={notice}
              onSignedIn={(next) => {
                setNotice(null);
                setBootError(null);
                setMe(next);
              }}
            />
          )}
        </main>
      </SessionContext.Provider>
    </UiContext.Provider>
  );
}

function View({ route, me }: { route: Route; me: Me }) {
  const { t } = useUi();
  const own = me.account_id ?? "";
  switch (route.name) {
    case "home":
    case "operator":
      return me.role === "admin" ? <OperatorView /> : <AccountView key={own} accountId={own} />;
    case "account":
      return <AccountView key={route.accountId} accountId={route.accountId} />;
    case "newKey":
      return <NewKeyView key={route.accountId} accountId={route.accountId} />;
    case "key":
      return (
        <KeyView key={`${route.accountId}/${route.keyId}`} accountId={route.accountId} keyId={route.keyId} />
      );
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

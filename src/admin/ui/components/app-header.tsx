// The header over every page: the skip link, the brand, the menus the signed-in credential's role allows
// (every account and the people for operators, the account switcher for a person in several accounts, "my
// account" for a person), who is signed in, the language, and signing out.

import { isPerson } from "../api/abilities.js";
import { useOptionalSession } from "../hooks/use-session.js";
import { useUi } from "../hooks/use-ui.js";
import type { Lang, MessageKey } from "../i18n/lookup.js";
import { href, type Route } from "../route.js";

/** The account the page is about, if any: the switcher shows it. */
function accountOf(route: Route): string {
  return "accountId" in route ? route.accountId : "";
}

export function AppHeader({
  lang,
  onLang,
  route,
  onSkip,
}: {
  lang: Lang;
  onLang(lang: Lang): void;
  route: Route;
  onSkip(): void;
}) {
  const { t } = useUi();
  const session = useOptionalSession();
  const me = session?.me;
  const memberships = me?.memberships ?? [];
  const current = accountOf(route);

  return (
    <>
      <button type="button" class="skip secondary" onClick={onSkip}>
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
          {session && me && (
            <nav aria-label={t("app.dashboard")}>
              {session.can("overview.read") && <a href={href({ name: "operator" })}>{t("nav.accounts")}</a>}
              {session.can("users.read") && <a href={href({ name: "people" })}>{t("nav.people")}</a>}
              {isPerson(me) && <a href={href({ name: "myAccount" })}>{t("nav.me")}</a>}
            </nav>
          )}
          {memberships.length > 1 && (
            <label class="switcher">
              <span>{t("nav.account")}</span>
              <select
                value={memberships.some((m) => m.account_id === current) ? current : ""}
                onChange={(event) => {
                  const accountId = event.currentTarget.value;
                  if (accountId !== "") location.hash = href({ name: "account", accountId });
                }}
              >
                {!memberships.some((m) => m.account_id === current) && <option value="">—</option>}
                {memberships.map((m) => (
                  <option key={m.account_id} value={m.account_id}>
                    {m.account_name === m.account_id ? m.account_id : `${m.account_name} (${m.account_id})`}
                  </option>
                ))}
              </select>
            </label>
          )}
          <span class="spacer" />
          {me && (
            <span class="who" data-testid="who">
              {t("nav.signedInAs")} <strong>{whoText(me, t)}</strong>
            </span>
          )}
          <label class="lang">
            <span>{t("nav.language")}</span>
            <select value={lang} onChange={(event) => onLang(event.currentTarget.value as Lang)}>
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
    </>
  );
}

/** The person's name; for a legacy token, what the token is. */
function whoText(
  me: NonNullable<ReturnType<typeof useOptionalSession>>["me"],
  t: (key: MessageKey, values?: Record<string, string>) => string,
): string {
  if (me.user) return me.user.name;
  return me.role === "admin" ? t("role.admin") : t("role.account", { id: me.account_id ?? "" });
}

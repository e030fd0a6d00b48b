// "My account": the signed-in person's name, e-mail and how they signed in; the identity providers linked to
// them and linking another (my-providers.tsx); their sessions, each revocable, and signing out everywhere
// (my-sessions.tsx); their API tokens, made and revoked (my-tokens.tsx); and changing a local password
// (change-password.tsx). A legacy token or an API token has none of these.

import { isPerson } from "../../api/abilities.js";
import { PageTitle } from "../../components/page-title.js";
import { Time } from "../../components/time.js";
import { useProviderNames } from "../../hooks/use-provider-names.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import { ChangePassword } from "./change-password.js";
import { MyProviders } from "./my-providers.js";
import { MySessions } from "./my-sessions.js";
import { MyTokens } from "./my-tokens.js";

export function MyAccountView() {
  const { t } = useUi();
  const { me } = useSession();
  const providers = useProviderNames();
  const how = me.signed_in_with;
  const provider = how?.provider ? (providers.get(how.provider) ?? how.provider) : null;

  return (
    <>
      <PageTitle title={t("me.title")} />
      {!isPerson(me) || !me.user ? (
        <p class="note info" role="status">
          {t("me.notPerson")}
        </p>
      ) : (
        <>
          <dl class="facts" data-testid="me-facts">
            <div>
              <dt>{t("me.name")}</dt>
              <dd>{me.user.name}</dd>
            </div>
            <div>
              <dt>{t("me.email")}</dt>
              <dd>{me.user.email}</dd>
            </div>
            <div>
              <dt>{t("me.how")}</dt>
              <dd>
                {how?.via === "oidc"
                  ? t("me.viaProvider", { provider: provider ?? "" })
                  : t("me.viaPassword")}
              </dd>
            </div>
            {me.session && (
              <div>
                <dt>{t("me.until")}</dt>
                <dd>
                  <Time iso={me.session.expires_at} />{" "}
                  <span class="muted small">
                    {t("me.idle", { minutes: Math.round(me.session.idle_timeout_seconds / 60) })}
                  </span>
                </dd>
              </div>
            )}
          </dl>
          <MyProviders me={me} />
          <MySessions providers={providers} />
          <MyTokens />
          {how?.via === "password" ? (
            <ChangePassword />
          ) : (
            <section aria-labelledby="password-heading">
              <h2 id="password-heading">{t("me.password")}</h2>
              <p class="muted">{t("me.passwordAtProvider", { provider: provider ?? "" })}</p>
            </section>
          )}
        </>
      )}
    </>
  );
}

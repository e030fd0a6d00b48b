// The signed-in person's sessions: when each began and was last seen, how (which provider, or a password),
// the browser and the address, the current one marked; each other one revocable (that browser then meets
// the sign-in page), and signing out everywhere, this session included, after a confirmation.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { Session } from "../../api/types.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { Time } from "../../components/time.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import { describeUserAgent } from "./user-agent.js";

export function MySessions({ providers }: { providers: ReadonlyMap<string, string> }) {
  const { t } = useUi();
  const { signOutEverywhere } = useSession();
  const loaded = useLoad(() => api.mySessions(), "my-sessions");
  const revoke = useAction();
  const [done, setDone] = useState<string | null>(null);
  const [everywhere, setEverywhere] = useState(false);
  const ending = useAction();

  const browser = (session: Session) => {
    const { browser: name, system } = describeUserAgent(session.user_agent);
    if (name && system) return t("me.sessions.browserOn", { browser: name, system });
    return name ?? system ?? t("me.sessions.unknownBrowser");
  };

  return (
    <section aria-labelledby="sessions-heading">
      <div class="section-head">
        <h2 id="sessions-heading">{t("me.sessions")}</h2>
        <button type="button" class="danger" onClick={() => setEverywhere(true)}>
          {t("me.sessions.everywhere")}
        </button>
      </div>
      <p class="muted">{t("me.sessions.intro")}</p>
      {done !== null && <Status>{done}</Status>}
      {revoke.error !== null && <ErrorNote error={revoke.error} />}
      <LoadProblem loaded={loaded} />
      {loaded.data && (
        <div class="table-wrap">
          <table class="sessions">
            <thead>
              <tr>
                <th scope="col">{t("me.sessions.col.browser")}</th>
                <th scope="col">{t("me.sessions.col.how")}</th>
                <th scope="col">{t("me.sessions.col.began")}</th>
                <th scope="col">{t("me.sessions.col.seen")}</th>
                <th scope="col">{t("me.sessions.col.address")}</th>
                <th scope="col">{t("keys.col.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.sessions.map((session) => (
                <tr key={session.id} data-current={session.current ? "true" : undefined}>
                  <th scope="row">
                    {browser(session)}{" "}
                    {session.current && <span class="badge active">{t("me.sessions.current")}</span>}
                  </th>
                  <td>
                    {session.via === "oidc"
                      ? (providers.get(session.provider ?? "") ?? session.provider)
                      : t("me.viaPassword")}
                  </td>
                  <td class="nowrap">
                    <Time iso={session.created_at} />
                  </td>
                  <td class="nowrap">
                    <Time iso={session.last_seen_at} />
                  </td>
                  <td>
                    <code>{session.address}</code>
                  </td>
                  <td>
                    {!session.current && (
                      <button
                        type="button"
                        class="secondary small"
                        disabled={revoke.busy}
                        aria-label={t("me.sessions.revokeOne", { browser: browser(session) })}
                        onClick={() =>
                          revoke.run(async () => {
                            setDone(null);
                            await api.revokeMySession(session.id);
                            setDone(t("me.sessions.revoked", { browser: browser(session) }));
                            loaded.reload();
                          })
                        }
                      >
                        {t("me.sessions.revoke")}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {everywhere && (
        <ConfirmDialog
          title={t("me.sessions.everywhereTitle")}
          confirm={t("me.sessions.everywhere")}
          working={t("me.sessions.ending")}
          busy={ending.busy}
          onConfirm={() => ending.run(signOutEverywhere)}
          onCancel={() => setEverywhere(false)}
        >
          <p>{t("me.sessions.everywhereBody")}</p>
          {ending.error !== null && <ErrorNote error={ending.error} />}
        </ConfirmDialog>
      )}
    </section>
  );
}

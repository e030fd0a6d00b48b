// Every person, for operators: name and e-mail, status, operator role, how they sign in, last sign-in;
// disabling (their sessions end at once, their tokens stop), enabling, lifting a sign-in lock and allowing a
// provider's link for operators (not operator-viewers); and the people's audit log (users created, disabled, enabled, passwords, operator
// roles, API tokens, sign-ins and their failures, lockouts, re-checks with the providers) as sentences naming
// who did what.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { User } from "../../api/types.js";
import { auditHeadline } from "../../components/audit-actor.js";
import { ErrorNote, LoadProblem, Status } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { RefreshButton } from "../../components/refresh-button.js";
import { Time } from "../../components/time.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useProviderNames } from "../../hooks/use-provider-names.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";
import { AllowLinkButtons } from "./allow-link-buttons.js";

function loadPeople() {
  return Promise.all([api.users(), api.usersAudit(100)]).then(([users, audit]) => ({
    users: [...users.users].sort((a, b) => a.name.localeCompare(b.name)),
    audit: audit.entries,
  }));
}

export function PeopleView() {
  const { t, lang } = useUi();
  const { me, can } = useSession();
  const writes = can("users.write");
  const providers = useProviderNames();
  const loaded = useLoad(loadPeople, "people");
  const switching = useAction();
  const [done, setDone] = useState<string | null>(null);
  const data = loaded.data;
  const names = new Map((data?.users ?? []).map((u) => [u.id, u.name]));

  const setDisabled = (user: User, disable: boolean) =>
    switching.run(async () => {
      setDone(null);
      await (disable ? api.disableUser : api.enableUser)(user.id);
      setDone(t(disable ? "users.disabled" : "users.enabled", { name: user.name }));
      loaded.reload();
    });

  const unlock = (user: User) =>
    switching.run(async () => {
      setDone(null);
      const { unlocked } = await api.unlockUser(user.id);
      setDone(t(unlocked ? "users.unlocked" : "users.notLocked", { name: user.name }));
      loaded.reload();
    });

  const allowLink = (user: User, providerId: string) =>
    switching.run(async () => {
      setDone(null);
      const { until } = await api.allowLink(user.id, providerId);
      const provider = providers.get(providerId) ?? providerId;
      const when = new Date(until).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
      setDone(t("users.linkAllowed", { name: user.name, provider, until: when }));
      loaded.reload();
    });

  const ways = (user: User) =>
    [
      ...user.providers.map((id) => providers.get(id) ?? id),
      ...(user.password ? [t("me.viaPassword")] : []),
    ].join(", ") || t("common.none");

  return (
    <>
      <div class="title-row">
        <PageTitle title={t("users.title")} />
        <span class="spacer" />
        <RefreshButton loaded={loaded} />
      </div>
      <LoadProblem loaded={loaded} />
      {done !== null && <Status>{done}</Status>}
      {switching.error !== null && <ErrorNote error={switching.error} />}
      {data && (
        <>
          <section aria-labelledby="users-heading">
            <h2 id="users-heading">{t("users.list")}</h2>
            {data.users.length === 0 ? (
              <p class="muted">{t("users.none")}</p>
            ) : (
              <div class="table-wrap">
                <table class="users">
                  <thead>
                    <tr>
                      <th scope="col">{t("members.col.person")}</th>
                      <th scope="col">{t("members.col.status")}</th>
                      <th scope="col">{t("users.col.operator")}</th>
                      <th scope="col">{t("users.col.ways")}</th>
                      <th scope="col">{t("users.col.lastSignIn")}</th>
                      {writes && <th scope="col">{t("keys.col.actions")}</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {data.users.map((user) => (
                      <tr key={user.id} data-user-id={user.id}>
                        <th scope="row">
                          {user.name}
                          <div class="muted small">{user.email}</div>
                        </th>
                        <td>
                          <span class={user.status === "active" ? "badge active" : "badge disabled"}>
                            {t(`users.status.${user.status}`)}
                          </span>
                        </td>
                        <td>
                          {user.operator_role
                            ? t(`role.${user.operator_role}` as MessageKey)
                            : t("common.none")}
                        </td>
                        <td>{ways(user)}</td>
                        <td class="nowrap">
                          {user.last_sign_in_at ? <Time iso={user.last_sign_in_at} /> : t("common.never")}
                        </td>
                        {writes && (
                          <td>
                            {user.id !== me.user?.id && (
                              <button
                                type="button"
                                class={user.status === "active" ? "danger small" : "secondary small"}
                                disabled={switching.busy}
                                aria-label={t(
                                  user.status === "active" ? "users.disableOne" : "users.enableOne",
                                  {
                                    name: user.name,
                                  },
                                )}
                                onClick={() => setDisabled(user, user.status === "active")}
                              >
                                {t(user.status === "active" ? "key.disable" : "key.enable")}
                              </button>
                            )}{" "}
                            {user.password && (
                              <button
                                type="button"
                                class="secondary small"
                                disabled={switching.busy}
                                aria-label={t("users.unlockOne", { name: user.name })}
                                onClick={() => unlock(user)}
                              >
                                {t("users.unlock")}
                              </button>
                            )}{" "}
                            <AllowLinkButtons
                              user={user}
                              providers={providers}
                              busy={switching.busy}
                              onAllow={allowLink}
                            />
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section aria-labelledby="people-audit-heading">
            <h2 id="people-audit-heading">{t("users.audit")}</h2>
            {data.audit.length === 0 ? (
              <p class="muted">{t("audit.empty")}</p>
            ) : (
              <div class="table-wrap">
                <table class="audit people-audit">
                  <thead>
                    <tr>
                      <th scope="col">{t("audit.col.at")}</th>
                      <th scope="col">{t("audit.col.actor")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.audit.map((entry, i) => (
                      <tr key={`${entry.at}-${i}`}>
                        <td class="nowrap">
                          <Time iso={entry.at} />
                        </td>
                        <td data-action={entry.action}>{auditHeadline(lang, entry, providers, names)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}

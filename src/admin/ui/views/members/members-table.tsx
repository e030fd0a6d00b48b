// An account's members: each one's name and e-mail, role, where the role comes from — given here (direct), or
// by an identity provider's groups, which is managed at the provider and so offered no change here — and
// status; for owners and operators, changing the direct role and removing a member after a confirmation.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { AccountRole, Member } from "../../api/types.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";

export const ROLES: readonly AccountRole[] = ["owner", "member", "viewer"];

/** A grant's source in words: "given here", or the provider's name. */
export function sourceName(source: string, providers: ReadonlyMap<string, string>): string | null {
  if (!source.startsWith("oidc:")) return null;
  const id = source.slice("oidc:".length);
  return providers.get(id) ?? id;
}

export function MembersTable({
  accountId,
  members,
  providers,
  writes,
  onChanged,
}: {
  accountId: string;
  members: Member[];
  providers: ReadonlyMap<string, string>;
  writes: boolean;
  onChanged(): void;
}) {
  const { t } = useUi();
  const [done, setDone] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const change = useAction();

  const setRole = (member: Member, role: AccountRole) =>
    change.run(async () => {
      setDone(null);
      await api.setMemberRole(accountId, member.user_id, role);
      setDone(t("members.roleChanged", { name: member.name, role: t(`role.${role}` as MessageKey) }));
      onChanged();
    });

  if (members.length === 0) return <p class="muted">{t("members.none")}</p>;
  return (
    <>
      {done !== null && <Status>{done}</Status>}
      {change.error !== null && <ErrorNote error={change.error} />}
      <div class="table-wrap">
        <table class="members">
          <thead>
            <tr>
              <th scope="col">{t("members.col.person")}</th>
              <th scope="col">{t("members.col.role")}</th>
              <th scope="col">{t("members.col.from")}</th>
              <th scope="col">{t("members.col.status")}</th>
              {writes && <th scope="col">{t("keys.col.actions")}</th>}
            </tr>
          </thead>
          <tbody>
            {members.map((member) => {
              const direct = member.grants.find((g) => g.source === "direct");
              return (
                <tr key={member.user_id} data-user-id={member.user_id}>
                  <th scope="row">
                    {member.name}
                    <div class="muted small">{member.email}</div>
                  </th>
                  <td>
                    {writes && direct ? (
                      <select
                        aria-label={t("members.roleOf", { name: member.name })}
                        value={direct.role}
                        disabled={change.busy}
                        onChange={(event) => setRole(member, event.currentTarget.value as AccountRole)}
                      >
                        {ROLES.map((role) => (
                          <option key={role} value={role}>
                            {t(`role.${role}` as MessageKey)}
                          </option>
                        ))}
                      </select>
                    ) : (
                      t(`role.${member.role}` as MessageKey)
                    )}
                  </td>
                  <td>
                    <ul class="grants">
                      {member.grants.map((grant) => {
                        const provider = sourceName(grant.source, providers);
                        return (
                          <li key={grant.source}>
                            {provider === null
                              ? t("members.fromDirect", { role: t(`role.${grant.role}` as MessageKey) })
                              : t("members.fromProvider", {
                                  provider,
                                  role: t(`role.${grant.role}` as MessageKey),
                                })}
                          </li>
                        );
                      })}
                    </ul>
                    {!direct && writes && <p class="muted small">{t("members.managedAtProvider")}</p>}
                  </td>
                  <td>
                    <span class={member.status === "active" ? "badge active" : "badge disabled"}>
                      {t(`users.status.${member.status}`)}
                    </span>
                  </td>
                  {writes && (
                    <td>
                      <button
                        type="button"
                        class="danger small"
                        aria-label={t("members.removeConfirm", { name: member.name })}
                        onClick={() => setRemoving(member)}
                      >
                        {t("members.remove")}
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {removing && (
        <RemoveDialog
          accountId={accountId}
          member={removing}
          providers={providers}
          onCancel={() => setRemoving(null)}
          onDone={() => {
            setDone(t("members.removed", { name: removing.name }));
            setRemoving(null);
            onChanged();
          }}
        />
      )}
    </>
  );
}

function RemoveDialog({
  accountId,
  member,
  providers,
  onCancel,
  onDone,
}: {
  accountId: string;
  member: Member;
  providers: ReadonlyMap<string, string>;
  onCancel(): void;
  onDone(): void;
}) {
  const { t } = useUi();
  const { busy, error, run } = useAction();
  const provider = member.grants.map((g) => sourceName(g.source, providers)).find((name) => name !== null);
  return (
    <ConfirmDialog
      title={t("members.removeTitle", { name: member.name, id: accountId })}
      confirm={t("members.removeConfirm", { name: member.name })}
      working={t("members.removing")}
      busy={busy}
      onConfirm={() =>
        run(async () => {
          await api.removeMember(accountId, member.user_id);
          onDone();
        })
      }
      onCancel={onCancel}
    >
      <p>{t("members.removeBody", { email: member.email })}</p>
      {provider && <p>{t("members.removeProvider", { provider })}</p>}
      {error !== null && <ErrorNote error={error} />}
    </ConfirmDialog>
  );
}

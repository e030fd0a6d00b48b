// An account's invitations still pending: to whom, with which role, who invited and when, when the link
// expires; for owners and operators, revoking one (its link stops working) after a confirmation.

import { useState } from "preact/hooks";
import { api } from "../../api/endpoints.js";
import type { Invitation, Member } from "../../api/types.js";
import { actorName } from "../../components/audit-actor.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { ErrorNote, Status } from "../../components/notes.js";
import { Time } from "../../components/time.js";
import { useAction } from "../../hooks/use-action.js";
import { useUi } from "../../hooks/use-ui.js";
import type { MessageKey } from "../../i18n/lookup.js";

export function InvitationsTable({
  accountId,
  invitations,
  members,
  writes,
  onChanged,
}: {
  accountId: string;
  invitations: Invitation[];
  members: Member[];
  writes: boolean;
  onChanged(): void;
}) {
  const { t, lang } = useUi();
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const names = new Map(members.map((m) => [m.user_id, m.name]));

  return (
    <>
      {done !== null && <Status>{done}</Status>}
      {invitations.length === 0 ? (
        <p class="muted">{t("invitations.none")}</p>
      ) : (
        <div class="table-wrap">
          <table class="invitations">
            <thead>
              <tr>
                <th scope="col">{t("invitations.col.email")}</th>
                <th scope="col">{t("members.col.role")}</th>
                <th scope="col">{t("invitations.col.by")}</th>
                <th scope="col">{t("invitations.col.created")}</th>
                <th scope="col">{t("invitations.col.expires")}</th>
                {writes && <th scope="col">{t("keys.col.actions")}</th>}
              </tr>
            </thead>
            <tbody>
              {invitations.map((invitation) => (
                <tr key={invitation.id} data-invitation-id={invitation.id}>
                  <th scope="row">{invitation.email}</th>
                  <td>{t(`role.${invitation.role}` as MessageKey)}</td>
                  <td>{actorName(lang, invitation.invited_by, names)}</td>
                  <td class="nowrap">
                    <Time iso={invitation.created_at} />
                  </td>
                  <td class="nowrap">
                    <Time iso={invitation.expires_at} />
                  </td>
                  {writes && (
                    <td>
                      <button
                        type="button"
                        class="danger small"
                        aria-label={t("invitations.revokeOne", { email: invitation.email })}
                        onClick={() => setRevoking(invitation)}
                      >
                        {t("invitations.revoke")}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoking && (
        <RevokeInvitation
          accountId={accountId}
          invitation={revoking}
          onCancel={() => setRevoking(null)}
          onDone={() => {
            setDone(t("invitations.revoked", { email: revoking.email }));
            setRevoking(null);
            onChanged();
          }}
        />
      )}
    </>
  );
}

function RevokeInvitation({
  accountId,
  invitation,
  onCancel,
  onDone,
}: {
  accountId: string;
  invitation: Invitation;
  onCancel(): void;
  onDone(): void;
}) {
  const { t } = useUi();
  const { busy, error, run } = useAction();
  return (
    <ConfirmDialog
      title={t("invitations.revokeTitle", { email: invitation.email })}
      confirm={t("invitations.revokeOne", { email: invitation.email })}
      busy={busy}
      onConfirm={() =>
        run(async () => {
          await api.revokeInvitation(accountId, invitation.id);
          onDone();
        })
      }
      onCancel={onCancel}
    >
      <p>{t("invitations.revokeBody")}</p>
      {error !== null && <ErrorNote error={error} />}
    </ConfirmDialog>
  );
}

// An account's people, for its owners and operators: the members with their role and where it comes from
// (members-table.tsx), inviting by e-mail with a role (invite-form.tsx) and the invitations still pending
// (invitations-table.tsx). An operator-viewer sees the same without a way to change anything.

import { api } from "../../api/endpoints.js";
import { LoadProblem } from "../../components/notes.js";
import { PageTitle } from "../../components/page-title.js";
import { RefreshButton } from "../../components/refresh-button.js";
import { useLoad } from "../../hooks/use-load.js";
import { useSession } from "../../hooks/use-session.js";
import { useUi } from "../../hooks/use-ui.js";
import { href } from "../../route.js";
import { InvitationsTable } from "./invitations-table.js";
import { InviteForm } from "./invite-form.js";
import { MembersTable } from "./members-table.js";

function loadMembers(accountId: string) {
  return Promise.all([api.members(accountId), api.invitations(accountId), api.providers()]).then(
    ([members, invitations, ways]) => ({
      members: members.members,
      invitations: invitations.invitations,
      providers: new Map(ways.providers.map((p) => [p.id, p.name])),
    }),
  );
}

export function MembersView({ accountId }: { accountId: string }) {
  const { t } = useUi();
  const writes = useSession().can("members.write", accountId);
  const loaded = useLoad(() => loadMembers(accountId), `members/${accountId}`);
  const data = loaded.data;

  return (
    <>
      <p class="crumbs">
        <a href={href({ name: "account", accountId })}>← {t("account.title", { id: accountId })}</a>
      </p>
      <div class="title-row">
        <PageTitle title={t("members.title", { id: accountId })} />
        <span class="spacer" />
        <RefreshButton loaded={loaded} />
      </div>
      <LoadProblem loaded={loaded} />
      {data && (
        <>
          <section aria-labelledby="members-heading">
            <h2 id="members-heading">{t("members.list")}</h2>
            <p class="muted">{t("members.intro")}</p>
            <MembersTable
              accountId={accountId}
              members={data.members}
              providers={data.providers}
              writes={writes}
              onChanged={loaded.reload}
            />
          </section>
          {writes && <InviteForm accountId={accountId} onInvited={loaded.reload} />}
          <section aria-labelledby="invitations-heading">
            <h2 id="invitations-heading">{t("invitations.title")}</h2>
            <InvitationsTable
              accountId={accountId}
              invitations={data.invitations}
              members={data.members}
              writes={writes}
              onChanged={loaded.reload}
            />
          </section>
        </>
      )}
    </>
  );
}

// An operator's leave for a person to link an identity provider (POST …/allow-link): one button per
// configured provider the person has not linked yet. The person's next sign-in with it, with their verified
// e-mail, links it to them once — the explicit action that stands in for the person's own proof when they
// cannot sign in as before (a lost password, a directory's user who signs in through another provider).

import type { User } from "../../api/types.js";
import { useUi } from "../../hooks/use-ui.js";

export function AllowLinkButtons(props: {
  user: User;
  providers: ReadonlyMap<string, string>;
  busy: boolean;
  onAllow: (user: User, providerId: string) => void;
}) {
  const { t } = useUi();
  const { user, providers } = props;
  const unlinked = [...providers].filter(([id]) => !user.providers.includes(id));
  return (
    <>
      {unlinked.map(([id, provider]) => (
        <button
          key={id}
          type="button"
          class="secondary small"
          disabled={props.busy}
          aria-label={t("users.allowLinkOne", { provider, name: user.name })}
          onClick={() => props.onAllow(user, id)}
        >
          {t("users.allowLink", { provider })}
        </button>
      ))}
    </>
  );
}

// The identity providers a signed-in person can sign in with: those already linked to them, and a "Link"
// button for each other one. Linking sends the browser through the provider and back in this same session,
// so that the person proves both — signed in here, and known to the provider — before the gateway ties the
// provider's identity to them (docs/sign-in.md, no way around the provider).

import { api } from "../../api/endpoints.js";
import type { Me } from "../../api/types.js";
import { ErrorNote, LoadProblem } from "../../components/notes.js";
import { useAction } from "../../hooks/use-action.js";
import { useLoad } from "../../hooks/use-load.js";
import { useUi } from "../../hooks/use-ui.js";

export function MyProviders({ me }: { me: Me }) {
  const { t } = useUi();
  const ways = useLoad(() => api.providers(), "providers");
  const link = useAction();
  const providers = ways.data?.providers ?? [];
  if (ways.data && providers.length === 0) return null;

  const start = (id: string) =>
    link.run(async () => {
      const { url } = await api.linkProvider(id);
      location.assign(url);
    });

  return (
    <section aria-labelledby="providers-heading">
      <h2 id="providers-heading">{t("me.providers")}</h2>
      <p class="muted">{t("me.providers.intro")}</p>
      <LoadProblem loaded={ways} />
      <ul class="providers" data-testid="my-providers">
        {providers.map((provider) => (
          <li key={provider.id}>
            <strong>{provider.name}</strong>{" "}
            {me.linked_providers.includes(provider.id) ? (
              <span class="muted">{t("me.providers.linked")}</span>
            ) : (
              <button type="button" class="secondary" disabled={link.busy} onClick={() => start(provider.id)}>
                {t("me.providers.link", { provider: provider.name })}
              </button>
            )}
          </li>
        ))}
      </ul>
      {link.error !== null && <ErrorNote error={link.error} />}
    </section>
  );
}

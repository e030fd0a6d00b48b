// Which identity provider speaks for an e-mail: the domains of a provider are its rules' emailDomains and its
// own `domains` list. An invitation to an e-mail a provider speaks for (with requireForDomains, the default)
// is accepted only by signing in through that provider, so that whoever holds a leaked link cannot make a
// password user of the company's e-mail (docs/sign-in.md, no way around the provider).

import type { ProviderSettings } from "./settings.js";

/** The e-mail domains a provider speaks for, exactly (not their subdomains). */
export function providerDomains(provider: ProviderSettings): Set<string> {
  const domains = new Set(provider.domains);
  for (const rule of provider.rules) for (const domain of rule.emailDomains ?? []) domains.add(domain);
  return domains;
}

/** The first provider that requires invitations to `email` to be accepted through it, or null. */
export function requiredProvider(
  providers: readonly ProviderSettings[],
  email: string,
): ProviderSettings | null {
  const domain = email.slice(email.lastIndexOf("@") + 1);
  return (
    providers.find((provider) => provider.requireForDomains && providerDomains(provider).has(domain)) ?? null
  );
}

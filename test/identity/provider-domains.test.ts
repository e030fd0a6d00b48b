// Which e-mail domains a provider speaks for (its own list and its rules' domains), and which provider an
// invitation to an address must be accepted through.

import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { providerDomains, requiredProvider } from "../../src/identity/provider-domains.js";

const providers = configSchema.parse({
  signIn: {
    providers: [
      {
        id: "corp",
        name: "Corp",
        issuer: "https://id.corp.example",
        clientId: "gw",
        domains: ["corp.example"],
        rules: [{ emailDomains: ["labs.example", "corp.example"], operator: "operator-viewer" }],
      },
      {
        id: "free",
        name: "Free",
        issuer: "https://id.free.example",
        clientId: "gw",
        domains: ["free.example"],
        requireForDomains: false,
      },
    ],
  },
}).signIn.providers;
const [corp, free] = providers as [(typeof providers)[number], (typeof providers)[number]];

describe("provider domains", () => {
  it("are the provider's own and its rules', each once", () => {
    expect([...providerDomains(corp)].sort()).toEqual(["corp.example", "labs.example"]);
    expect([...providerDomains(free)]).toEqual(["free.example"]);
  });

  it("require the provider for an address in them, exactly, when it asks to be required", () => {
    expect(requiredProvider(providers, "ann@labs.example")?.id).toBe("corp");
    expect(requiredProvider(providers, "ann@corp.example")?.id).toBe("corp");
    expect(requiredProvider(providers, "ann@sub.corp.example")).toBeNull();
    expect(requiredProvider(providers, "ann@free.example")).toBeNull();
    expect(requiredProvider([], "ann@corp.example")).toBeNull();
  });
});

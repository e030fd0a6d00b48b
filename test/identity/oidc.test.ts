// A provider's client secret comes from an environment variable or a mounted file, read at start-up — never
// from the configuration itself — and a secret that is not there fails the start naming where it was looked for.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { providerSecrets } from "../../src/identity/oidc.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const directory = temporaryDirectories("tunnel-oidc-secret-");

function providers(...fields: Record<string, unknown>[]) {
  return configSchema.parse({
    signIn: {
      providers: fields.map((extra, i) => ({
        id: `p${i}`,
        name: `P${i}`,
        issuer: "https://idp.example",
        clientId: "gw",
        ...extra,
      })),
    },
  }).signIn.providers;
}

describe("providerSecrets", () => {
  it("reads each provider's secret from its variable or its file (trimmed), or none for a public client", () => {
    const file = join(directory(), "secret");
    writeFileSync(file, "from-a-file\n");
    const secrets = providerSecrets(
      providers({ clientSecretEnv: "OIDC_SECRET" }, { clientSecretFile: file }, {}),
      { OIDC_SECRET: "from-the-environment" },
    );
    expect(secrets).toEqual(
      new Map([
        ["p0", "from-the-environment"],
        ["p1", "from-a-file"],
        ["p2", null],
      ]),
    );
  });

  it("refuses a variable that is not set and a file that cannot be read, naming them", () => {
    expect(() => providerSecrets(providers({ clientSecretEnv: "MISSING" }), {})).toThrow(
      "signIn.providers p0: the environment variable MISSING (clientSecretEnv) is not set",
    );
    expect(() => providerSecrets(providers({ clientSecretFile: join(directory(), "none") }), {})).toThrow(
      /signIn\.providers p0: cannot read clientSecretFile .*none/,
    );
  });
});

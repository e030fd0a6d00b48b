// The providers' client secrets, read once at start-up: from an environment variable, from a file (trimmed),
// or none for a public client; a missing one fails the start naming the provider and where it looked.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { providerSecrets } from "../../src/identity/provider-secrets.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const temporaryDirectory = temporaryDirectories("tunnel-provider-secrets-");

/** Providers as the configuration gives them, each with the secret settings given. */
function providers(...secrets: Record<string, string>[]) {
  return configSchema.parse({
    signIn: {
      providers: secrets.map((secret, i) => ({
        id: `p${i}`,
        name: `P${i}`,
        issuer: "https://id.example",
        clientId: "gw",
        ...secret,
      })),
    },
  }).signIn.providers;
}

describe("provider secrets", () => {
  it("come from the environment, from a file (trimmed), or are none for a public client", () => {
    const file = join(temporaryDirectory(), "secret");
    writeFileSync(file, "from-the-file\n");
    const secrets = providerSecrets(
      providers({ clientSecretEnv: "CORP_SECRET" }, { clientSecretFile: file }, {}),
      { CORP_SECRET: "from-the-env" },
    );
    expect([...secrets]).toEqual([
      ["p0", "from-the-env"],
      ["p1", "from-the-file"],
      ["p2", null],
    ]);
  });

  it("fail the start when the variable is unset or empty, naming the provider and the variable", () => {
    const list = providers({ clientSecretEnv: "CORP_SECRET" });
    for (const env of [{}, { CORP_SECRET: "" }])
      expect(() => providerSecrets(list, env)).toThrow(
        "signIn.providers p0: the environment variable CORP_SECRET (clientSecretEnv) is not set",
      );
  });

  it("fail the start when the file cannot be read, naming the provider and the file", () => {
    const missing = join(temporaryDirectory(), "missing");
    expect(() => providerSecrets(providers({ clientSecretFile: missing }), {})).toThrow(
      new RegExp(`^signIn\\.providers p0: cannot read clientSecretFile ${missing}: ENOENT`),
    );
  });
});

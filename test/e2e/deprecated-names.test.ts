// The public names that changed still answer until the version they go away in: for every entry of the
// deprecated list (src/core/deprecated-names.ts), the old name holds the same value as its replacement on
// every surface the list names — a key's JSON at GET /v1/key, in GET /v1/balance, from the admin API and the
// CLI's --json; an account's from the admin API and the CLI; the webhooks' data as a receiver gets it — and
// the OpenAPI document marks it deprecated. The CLI's old commands are in test/cli/budget-commands.test.ts.

import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { openApiDocument } from "../../src/admin/openapi.js";
import { accountsCommands } from "../../src/cli/accounts-commands.js";
import { keysCommands } from "../../src/cli/keys-commands.js";
import { DEPRECATED_NAMES, REMOVED_IN, type Surface } from "../../src/core/deprecated-names.js";
import { alertsTo, spend, WEBHOOK_ENV } from "../helpers/alerts.js";
import { runCli } from "../helpers/cli.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { waitUntil } from "../helpers/wait.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const ADMIN = "admin-token-0123456789";

let t: TestGateway;
let receiver: WebhookReceiver;
/** Each surface's documents, by where they were read. */
const documents = {} as Record<Exclude<Surface, "cli">, Record<string, unknown>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await startTestGateway({
    config: { admin: { token: ADMIN }, alerts: alertsTo(receiver.url, ["budget.threshold", "key.created"]) },
    env: WEBHOOK_ENV,
  });
  const key = await t.newKey({ budgets: ["1/day", "20/month"] });
  await admin(`/admin/v1/accounts/acme/budgets`, "PUT", {
    billing: "both",
    budgets: [{ period: "month", amount: 500 }],
    alert_at: [50],
  });
  // 85 % of the day's window: its 80 % threshold is announced.
  await spend(t.store, { accountId: "acme", keyId: key.id }, 850_000);
  await waitUntil(
    () => ["key.created", "budget.threshold"].every((type) => webhook(type) !== undefined),
    "the key.created and budget.threshold webhooks",
  );

  const cli = async (register: typeof keysCommands, args: string[]) => {
    vi.stubEnv("TUNNEL_CONFIG", "");
    vi.stubEnv("TUNNEL_REDIS_URL", inject("redisUrl"));
    vi.stubEnv("TUNNEL_REDIS_PREFIX", t.config.redis.prefix);
    const run = await runCli(register, [...args, "--json"]);
    vi.unstubAllEnvs();
    expect(run.error).toBeNull();
    return JSON.parse(run.stdout);
  };
  const balance = await json(await t.fetch("/v1/balance", { key: key.value }));
  documents.key = {
    "GET /v1/key": await json(await t.fetch("/v1/key", { key: key.value })),
    "GET /v1/balance's key": balance.key,
    "the admin API's key": await json(await admin(`/admin/v1/accounts/acme/keys/${key.id}`)),
    "keys show --json": await cli(keysCommands, ["keys", "show", key.id]),
  };
  documents.account = {
    "the admin API's account": await json(await admin("/admin/v1/accounts/acme")),
    "accounts show --json": await cli(accountsCommands, ["accounts", "show", "acme"]),
  };
  documents["budget.threshold"] = { "the budget.threshold webhook": webhook("budget.threshold") };
  documents["key.created"] = { "the key.created webhook": webhook("key.created") };
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

function admin(path: string, method = "GET", body?: unknown) {
  return fetch(`${t.gateway.adminUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function webhook(type: string): unknown {
  return receiver.received.find((delivery) => delivery.body.type === type)?.body;
}

/** The value at a path such as `budget.initial` or `budgets[0].amount`. */
function at(document: unknown, path: string): unknown {
  return path
    .split(/\.|(?=\[)/)
    .reduce<unknown>(
      (value, step) =>
        value === null || typeof value !== "object"
          ? undefined
          : (value as Record<string, unknown>)[step.startsWith("[") ? step.slice(1, -1) : step],
      document,
    );
}

const answered = DEPRECATED_NAMES.filter(
  (name): name is typeof name & { surface: Exclude<Surface, "cli"> } => name.surface !== "cli",
);

describe("the deprecated names", () => {
  it("are read on every surface the list names", () => {
    expect(Object.keys(documents).sort()).toEqual([...new Set(answered.map((name) => name.surface))].sort());
  });

  it.each(answered.map((name) => [name.old, name.now, name.surface] as const))(
    "%s answers what %s does (%s)",
    (old, now, surface) => {
      for (const [where, document] of Object.entries(documents[surface])) {
        const replacement = at(document, now);
        expect(replacement, `${where}: ${now}`).toBeDefined();
        expect(replacement, `${where}: ${now}`).not.toBeNull();
        // An old object holds every field of its replacement, with its own old names beside them.
        if (typeof replacement === "object" && replacement !== null)
          expect(at(document, old), where).toMatchObject(replacement);
        else expect(at(document, old), where).toEqual(replacement);
      }
    },
  );

  it("are marked deprecated in the OpenAPI document, saying what replaces each and when it goes", () => {
    const components = (openApiDocument() as any).components.schemas;
    const property = (component: string, path: string): any =>
      path.split(".").reduce<any>((schema, field) => {
        const object = schema.$ref ? components[schema.$ref.split("/").at(-1)] : schema;
        const inner = object.properties ? object : object.anyOf.find((branch: any) => branch.$ref);
        const resolved = inner.$ref ? components[inner.$ref.split("/").at(-1)] : inner;
        return resolved.properties[field];
      }, components[component]);
    for (const { surface, old, now } of answered) {
      if (surface !== "key" && surface !== "account") continue;
      const schema = property(surface === "key" ? "Key" : "Account", old);
      expect(schema, old).toMatchObject({ deprecated: true });
      expect(schema.description, old).toContain(now.replace("budgets[0].", ""));
      expect(schema.description, old).toContain(REMOVED_IN);
    }
  });
});

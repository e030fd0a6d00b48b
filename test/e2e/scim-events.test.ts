// SCIM's changes are identity events like a sign-in's (docs/sign-in.md#sign-in-events): each change a
// directory makes, each change refused, and each request without a live SCIM token writes one log line at its
// outcome's level and counts it in tunnel_gateway_identity_events_total — and no line carries the SCIM token.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as OKTA from "../fixtures/scim/okta.js";
import { type ScimGateway, startScimGateway } from "../helpers/scim.js";

let g: ScimGateway;

beforeAll(async () => {
  g = await startScimGateway();
});
afterAll(async () => {
  await g?.close();
});

async function counts(): Promise<Map<string, number>> {
  const text = await (await fetch(`${g.t.gateway.metricsUrl}/metrics`)).text();
  const found = new Map<string, number>();
  for (const [, event, outcome, value] of text.matchAll(
    /^tunnel_gateway_identity_events_total\{event="(scim[^"]+)",outcome="([^"]+)"\} (\d+)$/gm,
  ))
    found.set(`${event} ${outcome}`, Number(value));
  return found;
}

/** Runs `act`; the SCIM event lines it wrote, as [event, outcome, level], and the counts it added. */
async function eventsOf(act: () => Promise<unknown>) {
  const before = await counts();
  const from = g.t.logs.length;
  await act();
  const lines = g.t.logs
    .slice(from)
    .filter((line) => typeof line.event === "string" && (line.event as string).startsWith("scim."));
  const after = await counts();
  const added = [...after].filter(([key, value]) => value !== (before.get(key) ?? 0));
  return {
    lines: lines.map((line) => [line.event, line.outcome, line.level === 30 ? "info" : "warn"]),
    added: new Map(added.map(([key, value]) => [key, value - (before.get(key) ?? 0)])),
  };
}

describe("SCIM's identity events", () => {
  let userId: string;

  it("publish a user created, replaced and deactivated, each as one line and one count", async () => {
    const created = await eventsOf(async () => {
      const answer = await g.scim("POST", "/Users", OKTA.CREATE_USER);
      expect(answer.status).toBe(201);
      userId = answer.body.id;
    });
    expect(created.lines).toEqual([["scim.user.create", "success", "info"]]);
    expect(created.added).toEqual(new Map([["scim.user.create success", 1]]));

    const replaced = await eventsOf(() => g.scim("PUT", `/Users/${userId}`, OKTA.replaceUser(userId)));
    expect(replaced.lines).toContainEqual(["scim.user.update", "success", "info"]);

    const deactivated = await eventsOf(() => g.scim("PATCH", `/Users/${userId}`, OKTA.DEACTIVATE_USER));
    expect(deactivated.lines).toContainEqual(["scim.user.deactivate", "success", "info"]);
    expect(deactivated.added.get("scim.user.deactivate success")).toBe(1);
  });

  it("publish a group's members changed", async () => {
    const pushed = await eventsOf(async () => {
      const group = await g.scim("POST", "/Groups", { ...OKTA.CREATE_GROUP, members: [{ value: userId }] });
      expect(group.status).toBe(201);
    });
    expect(pushed.lines).toEqual([["scim.group.members", "success", "info"]]);
  });

  it("publish a refused change at warn with its error's code, and a request without a SCIM token", async () => {
    const refused = await eventsOf(async () => {
      const answer = await g.scim("POST", "/Users", { ...OKTA.CREATE_USER, userName: "not an e-mail" });
      expect(answer.status).toBe(400);
    });
    expect(refused.lines).toEqual([["scim.user.create", "refused", "warn"]]);
    expect(refused.added).toEqual(new Map([["scim.user.create refused", 1]]));

    const stranger = await eventsOf(async () => {
      const answer = await g.scim("GET", "/Users", undefined, `sk-tunnel-scim-${"0".repeat(64)}`);
      expect(answer.status).toBe(401);
    });
    expect(stranger.lines).toEqual([["scim.token", "unauthorized", "warn"]]);
    expect(stranger.added).toEqual(new Map([["scim.token unauthorized", 1]]));
  });

  it("never write the SCIM token in a line", () => {
    const text = g.t.logs.map((line) => JSON.stringify(line)).join("\n");
    expect(text).toContain("scim.user.create");
    expect(text).not.toContain(g.token);
    expect(text).not.toContain(g.token.slice(-64));
  });
});

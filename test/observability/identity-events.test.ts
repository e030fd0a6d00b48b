// The identity events' subscribers: one log line at the outcome's declared level and one count per event,
// only the fields an event declares (never one it was handed besides), only the events of the IdentityEvents
// subscribed to, and nothing once unsubscribed. SCIM's events are declared already, for the SCIM routes to
// publish.

import { describe, expect, it } from "vitest";
import { IdentityEvents, identityChannelName } from "../../src/core/channels.js";
import { IDENTITY_EVENT_NAMES, IDENTITY_EVENTS, levelOf } from "../../src/core/identity-events.js";
import { observeIdentityEvents } from "../../src/observability/identity-events.js";
import { captureLogs } from "../helpers/logs.js";

function observed() {
  const logs = captureLogs();
  const counted: [string, string][] = [];
  const events = new IdentityEvents();
  const stop = observeIdentityEvents(events, logs.logger, {
    identityEvent: (event, outcome) => void counted.push([event, outcome]),
  });
  return { logs, counted, events, stop };
}

describe("identity events", () => {
  it("are one diagnostics channel each, named tunnel-gateway:identity:<event>, SCIM's among them", () => {
    expect(identityChannelName("sign_in.password")).toBe("tunnel-gateway:identity:sign_in.password");
    expect(IDENTITY_EVENT_NAMES).toEqual(
      expect.arrayContaining([
        "scim.user.create",
        "scim.user.update",
        "scim.user.deactivate",
        "scim.user.delete",
        "scim.group.members",
      ]),
    );
    for (const name of IDENTITY_EVENT_NAMES) {
      expect(Object.keys(IDENTITY_EVENTS[name].outcomes).length).toBeGreaterThan(0);
      expect(IDENTITY_EVENTS[name].message).toMatch(/\S/);
    }
  });

  it("write one line at the outcome's level and count it, SCIM's as any other", () => {
    const { logs, counted, events, stop } = observed();
    events.publish("sign_in.password", "wrong_password", { userId: "usr_1", address: "192.0.2.1" });
    events.publish("scim.user.deactivate", "success", { userId: "usr_2" });
    stop();
    expect(logs.lines.map((line) => [line.level, line.msg, line.event, line.outcome])).toEqual([
      [40, "sign-in with a password", "sign_in.password", "wrong_password"],
      [30, "SCIM: user deactivated", "scim.user.deactivate", "success"],
    ]);
    expect(logs.lines[0]).toMatchObject({ user: "usr_1", address: "192.0.2.1" });
    expect(counted).toEqual([
      ["sign_in.password", "wrong_password"],
      ["scim.user.deactivate", "success"],
    ]);
    expect(levelOf("sign_in.password", "success")).toBe("info");
  });

  it("log only the declared fields: a secret handed along by mistake stays out", () => {
    const { logs, events, stop } = observed();
    events.publish("token.create", "success", {
      userId: "usr_1",
      ...({ token: "sk-tunnel-admin-secret", password: "hunter2-hunter2" } as object),
    });
    stop();
    const line = JSON.stringify(logs.lines[0]);
    expect(line).toContain("usr_1");
    expect(line).not.toContain("sk-tunnel-admin-secret");
    expect(line).not.toContain("hunter2");
  });

  it("hear only their own gateway's events, and none once unsubscribed", () => {
    const mine = observed();
    const theirs = observed();
    mine.events.publish("lockout", "email", { userId: "usr_1" });
    theirs.events.publish("lockout", "address", { address: "192.0.2.9" });
    mine.stop();
    mine.events.publish("lockout", "email", { userId: "usr_1" });
    theirs.stop();
    expect(mine.counted).toEqual([["lockout", "email"]]);
    expect(theirs.counted).toEqual([["lockout", "address"]]);
  });
});

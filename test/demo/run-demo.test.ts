// `npm run demo` as a user runs it: the built script in its own process. Its banner's commands work as
// printed (the key, the balance, a streamed completion billed at the printed prices), its dashboard answers
// at the printed address, the demo's owner signs in there with the printed e-mail and password and sees the
// account's people and their roles, the tokens for automation work on the admin API, and Ctrl-C stops
// everything it started: the gateway with its admin listener, the model server and its Redis.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { costOf } from "../../src/billing/pricing.js";
import { parseRubles } from "../../src/core/money.js";
import { demoCompletionTokens, demoPromptTokens } from "../../src/demo/demo-upstream.js";
import { waitUntil } from "../helpers/wait.js";

const DEMO = join(import.meta.dirname, "../../dist/demo/run-demo.js");

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("npm run demo", () => {
  it("prints working commands, its prices, the dashboard and its tokens, and stops all it started on Ctrl-C", async () => {
    const child = spawn(process.execPath, [DEMO], {
      env: { ...process.env, TUNNEL_CONFIG: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let banner = "";
    child.stderr?.on("data", (chunk: Buffer) => (banner += chunk.toString()));
    child.stdout?.resume();
    const exited = once(child, "close");
    try {
      await waitUntil(() => banner.includes("Ctrl-C stops"), "the demo's banner", 20_000);
      expect(banner).toContain("DEMO");
      const key = /export KEY=(sk-tunnel-[0-9a-f]{64})/.exec(banner)?.[1] as string;
      const url = /curl -s (http:\/\/127\.0\.0\.1:\d+)\/v1\/key -H "Authorization: Bearer \$KEY"/.exec(
        banner,
      )?.[1] as string;
      const redisPort = Number(/a throwaway Redis \(redis:\/\/127\.0\.0\.1:(\d+)/.exec(banner)?.[1]);
      const upstreamPort = Number(/a fake model server \(http:\/\/127\.0\.0\.1:(\d+)/.exec(banner)?.[1]);
      expect(key).toMatch(/^sk-tunnel-[0-9a-f]{64}$/);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const auth = { authorization: `Bearer ${key}` };

      const keyView = await fetch(`${url}/v1/key`, { headers: auth });
      expect(keyView.status).toBe(200);
      expect(await keyView.json()).toMatchObject({
        account_id: "demo",
        budgets: [{ period: "day", amount: 100, spent: 0 }],
      });

      // The streamed completion of the banner, exactly as printed.
      const body = /-d '(\{.*\})'/.exec(banner)?.[1] as string;
      const stream = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body,
      });
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toContain("text/event-stream");
      const events = await stream.text();
      expect(events).toContain("data: [DONE]");

      let balance = 1000;
      await waitUntil(async () => {
        const response = await fetch(`${url}/v1/balance`, { headers: auth });
        balance = ((await response.json()) as { balance: number }).balance;
        return balance < 1000;
      }, "the completion's settlement");
      // Billed exactly at the prices the banner states, for the tokens the demo model produced.
      const pricesLine = /Prices, per million tokens: ([\d.]+) RUB input, ([\d.]+) RUB output\./;
      const capLine = /A request\s+without max_tokens is held at (\d+) output tokens \(([\d.]+) RUB\)/;
      expect(banner).toMatch(pricesLine);
      expect(banner).toMatch(capLine);
      const prices = pricesLine.exec(banner);
      const cap = capLine.exec(banner);
      const price = {
        input: parseRubles(prices?.[1] as string, "input"),
        output: parseRubles(prices?.[2] as string, "output"),
        maxOutputTokens: Number(cap?.[1]),
      };
      const request = JSON.parse(body);
      const tokens = {
        promptTokens: demoPromptTokens(request),
        completionTokens: demoCompletionTokens(request),
      };
      expect(parseRubles("1000", "balance") - parseRubles(String(balance), "balance")).toBe(
        costOf(tokens, price),
      );
      expect(parseRubles(cap?.[2] as string, "hold")).toBe(
        costOf({ promptTokens: 0, completionTokens: price.maxOutputTokens }, price),
      );

      // The dashboard at the printed address, and the printed tokens on the admin API.
      const dashboard = /Dashboard: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(banner)?.[1] as string;
      expect(dashboard).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const page = await fetch(dashboard);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(await page.text()).toMatch(/<script[^>]+src=/);
      // The owner signs in with the printed e-mail and password, and sees the account's people and roles.
      const email = /e-mail {4}(\S+)\n/.exec(banner)?.[1] as string;
      const password = /password {2}(\S+)\n/.exec(banner)?.[1] as string;
      expect(email).toBe("owner@demo.example");
      expect(password).toMatch(/^[0-9a-z]{24}$/);
      const signedIn = await fetch(`${dashboard}auth/password`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: dashboard.slice(0, -1) },
        body: JSON.stringify({ email, password }),
      });
      expect(signedIn.status).toBe(200);
      const cookie = (signedIn.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
      const session = { headers: { cookie } };
      expect(await (await fetch(`${dashboard}admin/v1/me`, session)).json()).toMatchObject({
        credential: "session",
        user: { email: "owner@demo.example", name: "Demo Owner" },
        operator_role: "operator",
        memberships: [{ account_id: "demo", role: "owner" }],
      });
      const members = (await (await fetch(`${dashboard}admin/v1/accounts/demo/members`, session)).json()) as {
        members: { name: string; role: string }[];
      };
      expect(members.members.map((m) => [m.name, m.role])).toEqual([
        ["Demo Owner", "owner"],
        ["Vera Viewer", "viewer"],
      ]);
      // The password is printed once: the log lines below the banner never carry it.
      expect(banner.split(password)).toHaveLength(2);

      // The token path stays, for automation.
      const adminToken = /this run's admin token \(an operator\):\n\s+(\S+)\n/.exec(banner)?.[1] as string;
      const accountToken =
        /the demo account's own token \(its keys only\):\n\s+(sk-tunnel-account-[0-9a-f]{64})\n/.exec(
          banner,
        )?.[1] as string;
      expect(adminToken).toMatch(/^[0-9a-z]{32}$/);
      expect(accountToken).toMatch(/^sk-tunnel-account-[0-9a-f]{64}$/);
      const me = async (token: string) =>
        (await fetch(`${dashboard}admin/v1/me`, { headers: { authorization: `Bearer ${token}` } })).json();
      expect(await me(adminToken)).toMatchObject({ role: "admin", account_id: null });
      expect(await me(accountToken)).toMatchObject({ role: "account", account_id: "demo" });
      expect((await fetch(`${dashboard}admin/v1/me`, { headers: auth })).status).toBe(401);
      // The admin API's example, exactly as printed.
      const example = /curl -s (\S+\/admin\/v1\/accounts) -H "Authorization: Bearer (\S+)"/.exec(banner);
      const listed = await fetch(example?.[1] as string, {
        headers: { authorization: `Bearer ${example?.[2]}` },
      });
      expect(await listed.json()).toEqual([expect.objectContaining({ id: "demo", balance })]);

      child.kill("SIGINT");
      const [code] = await exited;
      expect(code).toBe(0);
      expect(banner).toContain("stopping the demo");
      expect(await listening(Number(new URL(url).port))).toBe(false);
      expect(await listening(Number(new URL(dashboard).port))).toBe(false);
      expect(await listening(upstreamPort)).toBe(false);
      expect(await listening(redisPort)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});

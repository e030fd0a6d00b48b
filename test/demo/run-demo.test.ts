// `npm run demo` as a user runs it: the built script in its own process. Its banner's commands work as
// printed (the key, the balance, a streamed completion that is billed), and Ctrl-C stops everything it
// started: the gateway, the model server and its Redis.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
  it("prints working commands, bills a streamed completion, and stops all it started on Ctrl-C", async () => {
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
      expect(key).toBeDefined();
      expect(url).toBeDefined();
      const auth = { authorization: `Bearer ${key}` };

      const keyView = await fetch(`${url}/v1/key`, { headers: auth });
      expect(keyView.status).toBe(200);
      expect(await keyView.json()).toMatchObject({
        account_id: "demo",
        budget: { period: "day", initial: 100, spent: 0 },
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
      expect(balance).toBeGreaterThan(0);

      child.kill("SIGINT");
      const [code] = await exited;
      expect(code).toBe(0);
      expect(banner).toContain("stopping the demo");
      expect(await listening(Number(new URL(url).port))).toBe(false);
      expect(await listening(upstreamPort)).toBe(false);
      expect(await listening(redisPort)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});

import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, inject, it } from "vitest";
import { missingServeFlags, RELAUNCHED_VARIABLE, SERVE_V8_FLAGS } from "../../src/cli/v8-tuning.js";
import { type GatewayProcess, spawnGateway, spawnServe } from "../helpers/gateway-process.js";

const FLAG = "--max-semi-space-size=64";
const serveArgv = ["node", "/app/dist/cli.js", "serve", "--port", "8080"];

describe("the V8 flags serve lacks", () => {
  it("are the image's for serve started without them", () => {
    expect(SERVE_V8_FLAGS).toEqual([FLAG]);
    expect(missingServeFlags(serveArgv, {}, [])).toEqual([FLAG]);
  });

  it("are none for the other commands, which serve nothing", () => {
    expect(missingServeFlags(["node", "cli.js", "keys", "list"], {}, [])).toEqual([]);
    expect(missingServeFlags(["node", "cli.js"], {}, [])).toEqual([]);
  });

  it("are none when the operator set the flag, in NODE_OPTIONS or on node's command line, in either spelling", () => {
    expect(missingServeFlags(serveArgv, { NODE_OPTIONS: "--max-semi-space-size=16" }, [])).toEqual([]);
    expect(
      missingServeFlags(serveArgv, { NODE_OPTIONS: "--enable-source-maps --max_semi_space_size=8" }, []),
    ).toEqual([]);
    expect(missingServeFlags(serveArgv, {}, ["--max-semi-space-size=32"])).toEqual([]);
    // Another flag of the operator's is no reason to leave this one out.
    expect(missingServeFlags(serveArgv, { NODE_OPTIONS: "--max-old-space-size=512" }, [])).toEqual([FLAG]);
  });

  it("are none in the process that was relaunched with them", () => {
    expect(missingServeFlags(serveArgv, { [RELAUNCHED_VARIABLE]: "child" }, [])).toEqual([]);
    expect(missingServeFlags(serveArgv, { [RELAUNCHED_VARIABLE]: "exec" }, [])).toEqual([]);
  });
});

/** The process that serves: the one started, or its child when it relaunched itself (Node without execve). */
function servingPid(started: number): number {
  const children = readFileSync(`/proc/${started}/task/${started}/children`, "utf8").trim();
  return children === "" ? started : Number(children.split(" ")[0]);
}
const argvOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");

const running: GatewayProcess[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.stop("SIGKILL")));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});
const started = async (env: Record<string, string> = {}) => {
  const gateway = await spawnGateway({ redis: { url: inject("redisUrl") } }, env);
  running.push(gateway);
  return gateway;
};

describe("node dist/cli.js serve", () => {
  it("serves with the image's V8 flag although nobody gave it one", async () => {
    const { child } = await started({ NODE_OPTIONS: "" });
    const pid = servingPid(child.pid as number);
    expect(argvOf(pid)).toContain(FLAG);
    expect(argvOf(pid)).toContain("serve");
  });

  it("serves with the operator's own setting, unchanged, in the process it was started as", async () => {
    const { child } = await started({ NODE_OPTIONS: "--max-semi-space-size=16" });
    const pid = child.pid as number;
    expect(servingPid(pid)).toBe(pid);
    expect(argvOf(pid)).not.toContain(FLAG);
    expect(environOf(pid)).toContain("NODE_OPTIONS=--max-semi-space-size=16");
  });

  it("drains on SIGTERM sent to the process it was started as, and exits 0", async () => {
    const gateway = await started({ NODE_OPTIONS: "" });
    const code = await gateway.stop("SIGTERM");
    expect(code).toBe(0);
    const messages = gateway.logs.map((line) => line.msg);
    expect(gateway.logs.find((line) => line.msg?.startsWith("shutting down"))).toMatchObject({
      signal: "SIGTERM",
    });
    expect(messages.at(-1)).toBe("stopped");
  });

  it("drains when the process it was started as is killed outright, rather than serve on unseen", async () => {
    const gateway = await started({ NODE_OPTIONS: "" });
    const launcher = gateway.child.pid as number;
    const pid = servingPid(launcher);
    if (pid === launcher) return; // replaced by execve (Node 22.15 on): there is no second process
    process.kill(launcher, "SIGKILL");
    // The serving process' output goes on into the same pipe: it ends with the drain's last line.
    expect(await gateway.exited).toBeNull();
    expect(gateway.logs.find((line) => line.msg?.startsWith("shutting down"))).toMatchObject({
      signal: "SIGTERM",
    });
    expect(gateway.logs.at(-1)?.msg).toBe("stopped");
  });

  it("ends killed by the signal that killed the serving process", async () => {
    const gateway = await started({ NODE_OPTIONS: "" });
    const pid = servingPid(gateway.child.pid as number);
    process.kill(pid, "SIGKILL");
    expect(await gateway.exited).toBeNull();
    expect(gateway.child.signalCode).toBe("SIGKILL");
  });

  it("exits with the serving process' exit code: 1 for a port in use, with its one line on stderr", async () => {
    const taken = createServer();
    servers.push(taken);
    taken.listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as { port: number }).port;
    const serve = spawnServe({ redis: { url: inject("redisUrl") } }, { NODE_OPTIONS: "" }, [
      "--port",
      String(port),
    ]);
    expect(await serve.exited).toBe(1);
    expect(serve.stderr()).toMatch(
      new RegExp(`^error: cannot listen for the public API on 127\\.0\\.0\\.1:${port}: .*\\n$`),
    );
  });

  it("exits 2 for a usage error, as without the relaunch", async () => {
    const serve = spawnServe({ redis: { url: inject("redisUrl") } }, { NODE_OPTIONS: "" }, [
      "--no-such-flag",
    ]);
    expect(await serve.exited).toBe(2);
  });
});

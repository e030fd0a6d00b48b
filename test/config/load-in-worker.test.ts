// `serve`'s loadConfig in a worker thread: the answer is taken once the thread has ended, a refusal comes
// back as the ConfigError it was, and a thread that fails — throws something else, ends without answering —
// is an error saying so, never a wait for an answer that will not come. The thread's script is the built one
// (dist/), or here, for the failures, a script of the test's own. (That its answers are loadConfig's is
// validation-worker.test.ts.)

import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConfigError } from "../../src/config/config-error.js";
import type * as LoadInWorker from "../../src/config/load-in-worker.js";

const BUILT = join(import.meta.dirname, "../../dist/config");
const { loadConfigInWorker } = (await import(join(BUILT, "load-in-worker.js"))) as typeof LoadInWorker;
const { ConfigError: BuiltConfigError } = (await import(join(BUILT, "config-error.js"))) as {
  ConfigError: typeof ConfigError;
};

/** A worker thread running `source` as an ES module in place of the validation worker. */
const script = (source: string) => new URL(`data:text/javascript,${encodeURIComponent(source)}`);
const ANSWER = 'import { parentPort } from "node:worker_threads";\nparentPort.postMessage';

afterEach(() => {
  vi.unstubAllEnvs();
});

async function failureOf(worker: URL): Promise<unknown> {
  return loadConfigInWorker({ env: {} }, worker).then(
    () => "validated",
    (error: unknown) => error,
  );
}

describe("loadConfigInWorker", () => {
  it("resolves with the configuration and where its settings came from, from the worker's table", async () => {
    const loaded = await loadConfigInWorker(
      { env: {} },
      script(
        `${ANSWER}({ valid: true, config: { listen: { port: 1 } }, origins: { "listen.port": "--port" } });`,
      ),
    );
    expect(loaded.config).toEqual({ listen: { port: 1 } });
    expect(loaded.origins.of(["listen", "port"])).toBe("--port");
    // A setting the configuration does not hold was set nowhere.
    expect(loaded.origins.of(["listen", "host"])).toBe("default");
  });

  it("rejects with a ConfigError of the worker's message for a configuration it refused", async () => {
    const failure = await failureOf(
      script(`${ANSWER}({ valid: false, message: "invalid configuration: x" });`),
    );
    expect(failure).toBeInstanceOf(BuiltConfigError);
    expect(failure).toMatchObject({ name: "ConfigError", message: "invalid configuration: x" });
  });

  it("says that the validation failed, with the worker's error, when it throws something else", async () => {
    const failure = await failureOf(script('throw new TypeError("a bug in validation");'));
    expect(failure).not.toBeInstanceOf(BuiltConfigError);
    expect(failure).toMatchObject({ message: "cannot validate the configuration: a bug in validation" });
    expect((failure as Error).cause).toMatchObject({ name: "TypeError" });
  });

  it("says that the worker ended without an answer, and with which exit code, rather than waiting", async () => {
    expect(await failureOf(script("process.exit(3);"))).toMatchObject({
      message: "cannot validate the configuration: its worker thread ended (exit code 3) without an answer",
    });
    expect(await failureOf(script("// answers nothing"))).toMatchObject({
      message: "cannot validate the configuration: its worker thread ended (exit code 0) without an answer",
    });
  });

  it("gives the worker the environment it is given, and this process' own otherwise", async () => {
    const echo = script(
      `import { workerData } from "node:worker_threads";\n${ANSWER}({ valid: false, message: String(workerData.env.TUNNEL_PROBE) });`,
    );
    const given = await loadConfigInWorker({ env: { TUNNEL_PROBE: "given" } }, echo).catch((e: Error) => e);
    expect(given).toMatchObject({ message: "given" });
    vi.stubEnv("TUNNEL_PROBE", "inherited");
    expect(await loadConfigInWorker({}, echo).catch((e: Error) => e)).toMatchObject({ message: "inherited" });
  });
});

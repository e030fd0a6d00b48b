// `tunnel-gateway serve`: the configuration with the command line's flags over it, then the gateway.

import { type Command, Option } from "commander";
import type { Override } from "../config/load.js";
import { loadConfigInWorker } from "../config/load-in-worker.js";
import { type CommonOptions, common, EXIT_FAILURE, numeric, redisFlagOverride } from "./common.js";

/** serve's flags, each overriding one setting (and the TUNNEL_* variable for it). */
const SERVE_FLAGS = [
  ["--port <n>", "listen.port", "public port"],
  ["--host <address>", "listen.host", "public interface"],
  ["--metrics-port <n>", "metrics.port", "metrics port"],
  ["--admin-port <n>", "admin.port", "admin API port"],
  ["--upstream <url>", "upstream.url", "the model server's root URL"],
].map(([flags, setting, help]) => ({
  option: new Option(flags as string, `${help} (overrides ${setting})`),
  path: (setting as string).split("."),
}));

export function serveCommand(program: Command): void {
  const serve = common(program.command("serve")).description("run the gateway");
  for (const { option } of SERVE_FLAGS) serve.addOption(option);
  serve.action(async (options: CommonOptions & Record<string, string | undefined>) => {
    const overrides: Override[] = [];
    for (const { option, path } of SERVE_FLAGS) {
      const value = options[option.attributeName()];
      if (value === undefined) continue;
      const typed = path.at(-1) === "port" ? numeric(value) : value;
      overrides.push({ path, value: typed, source: option.long ?? option.flags });
    }
    // Validated in a worker thread, so that this process never loads zod, the schema or yaml.
    const loaded = await loadConfigInWorker({
      file: options.config,
      overrides: [...overrides, ...redisFlagOverride(options)],
    });
    // Loaded on demand: the management commands start faster without the proxy and its dependencies.
    const { runGateway } = await import("../run-gateway.js");
    try {
      await runGateway(loaded);
    } catch (error) {
      // Everything was closed; should a stray handle keep the process up, it must not answer a probe.
      setTimeout(() => process.exit(EXIT_FAILURE), 500).unref();
      throw error;
    }
    // Everything is closed; should a stray handle keep the process up, it must not hold the rollout back.
    setTimeout(() => process.exit(0), 2000).unref();
  });
}

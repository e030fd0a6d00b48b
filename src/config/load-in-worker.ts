// `serve`'s loadConfig: the same validation (config/load.ts), run in a worker thread (validation-worker.ts)
// that ends once it has answered. An ES module cannot be unloaded, so a serving process that validated its
// configuration itself would hold zod, the schema and yaml for its whole life (docs/benchmarks.md, memory);
// this file imports none of them, only their types. The management commands, short-lived, validate in their
// own thread (cli/command-services.ts).

import { Worker } from "node:worker_threads";
import { ConfigError } from "./config-error.js";
import type { LoadOptions } from "./load.js";
import type { SettingOrigins } from "./origins.js";
import type { Config } from "./schema.js";

/** What `serve` runs on: the validated configuration, and where a setting came from, as loadConfig gives. */
export interface ServingConfig {
  config: Config;
  origins: Pick<SettingOrigins, "of">;
}

/** What the worker is given: loadConfig's options, with the environment copied as plain data. */
export interface ValidationRequest {
  file: string | undefined;
  env: Record<string, string | undefined>;
  overrides: NonNullable<LoadOptions["overrides"]>;
}

/** What the worker answers: plain data, which is all a message between threads can carry. */
export type ValidationAnswer =
  | { valid: true; config: Config; origins: Record<string, string> }
  | { valid: false; message: string };

const VALIDATION_WORKER = new URL("./validation-worker.js", import.meta.url);

/**
 * loadConfig(options) for the whole configuration, in a worker thread. Resolves once the thread has ended;
 * rejects with loadConfig's ConfigError, message for message, or with an Error saying that the thread failed
 * (threw something else, or ended without answering). `worker` is the script to run, for tests.
 */
export function loadConfigInWorker(
  options: Omit<LoadOptions, "env"> & { env?: Record<string, string | undefined> } = {},
  worker: URL = VALIDATION_WORKER,
): Promise<ServingConfig> {
  const request: ValidationRequest = {
    file: options.file,
    env: { ...(options.env ?? process.env) },
    overrides: options.overrides ?? [],
  };
  return new Promise((resolve, reject) => {
    let answer: ValidationAnswer | null = null;
    let failure: Error | null = null;
    const thread = new Worker(worker, { workerData: request });
    thread.once("message", (message: ValidationAnswer) => {
      answer = message;
    });
    thread.once("messageerror", (error) => {
      failure = error;
    });
    thread.once("error", (error) => {
      failure = error;
    });
    // Settled once the thread is gone, so that nothing it loaded outlives the answer.
    thread.once("exit", (code) => {
      if (answer?.valid) resolve({ config: answer.config, origins: originsFrom(answer.origins) });
      else if (answer) reject(new ConfigError(answer.message));
      else if (failure)
        reject(new Error(`cannot validate the configuration: ${failure.message}`, { cause: failure }));
      else
        reject(
          new Error(
            `cannot validate the configuration: its worker thread ended (exit code ${code}) without an answer`,
          ),
        );
    });
  });
}

/** SettingOrigins.of over the worker's table; a setting the configuration does not hold was never given. */
function originsFrom(table: Record<string, string>): Pick<SettingOrigins, "of"> {
  return { of: (path) => table[path.join(".")] ?? "default" };
}

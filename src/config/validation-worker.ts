// The worker thread in which `serve` validates its configuration (config/load-in-worker.ts starts it): zod,
// the schema and yaml are loaded here, in a thread that ends once it has answered, never in the serving
// thread, which could not unload them. It runs loadConfig itself, the one validation every command uses, and
// answers with plain data: the validated configuration (made of plain objects, arrays, strings, numbers and
// booleans, which a message carries as they are), and where each of its settings came from, which the
// serving thread cannot ask a YAML document it does not hold. A ConfigError is answered with its message;
// anything else is thrown, and reaches the serving thread as the worker's error.

import { parentPort, workerData } from "node:worker_threads";
import { ConfigError } from "./config-error.js";
import { loadConfig } from "./load.js";
import type { ValidationAnswer, ValidationRequest } from "./load-in-worker.js";
import { originsBySetting } from "./origins.js";

function validate(request: ValidationRequest): ValidationAnswer {
  try {
    const { config, origins } = loadConfig(request);
    return { valid: true, config, origins: originsBySetting(config, origins) };
  } catch (error) {
    if (error instanceof ConfigError) return { valid: false, message: error.message };
    throw error;
  }
}

parentPort?.postMessage(validate(workerData as ValidationRequest));

// Starts the suite's own redis-server once for all test files; each test isolates itself with a key
// prefix of its own. Everything runs under the suite's own TMPDIR, which teardown checks and removes.

import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { startRedisServer } from "../src/demo/redis-server.js";
import { useSuiteTmpdir } from "./helpers/suite-tmpdir.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const tmp = useSuiteTmpdir();
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  try {
    redis = await startRedisServer();
  } catch (error) {
    tmp.finish();
    throw error;
  }
  project.provide("redisUrl", redis.url);
  return async () => {
    await redis.stop();
    try {
      tmp.finish();
    } catch (error) {
      // Vitest only logs an error of global teardown ("error during close"): the exit code fails the run.
      process.exitCode = 1;
      throw error;
    }
  };
}

// Starts the suite's own redis-server once for all test files; each test isolates itself with a key
// prefix of its own.

import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { startRedisServer } from "../src/demo/redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const redis = await startRedisServer();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}

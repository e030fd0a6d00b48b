import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default is one file fewer than the cores: a single file at a time on a 2-core machine, where
    // most of a file's time is spent waiting on the gateways, redis-servers and Chromium it starts. Two at
    // once there halve the suite's time (docs/development.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

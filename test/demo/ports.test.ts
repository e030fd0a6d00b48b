// Whether a loopback port can be bound, so the demo can use the familiar 8080 when it is free.

import { once } from "node:events";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { isPortFree } from "../../src/demo/ports.js";
import { freePort } from "../../src/demo/redis-server.js";

describe("isPortFree", () => {
  it("is true for a port nobody listens on, and leaves it free", async () => {
    const port = await freePort();
    expect(await isPortFree(port)).toBe(true);
    expect(await isPortFree(port)).toBe(true);
  });

  it("is false for a port in use", async () => {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as { port: number };
    try {
      expect(await isPortFree(port)).toBe(false);
    } finally {
      server.close();
    }
  });
});

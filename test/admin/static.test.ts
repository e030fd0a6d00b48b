import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StaticFiles } from "../../src/admin/static.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const script = `console.log(${JSON.stringify("x".repeat(5000))});`;
let base: string;
let close: () => void;
const temporaryDirectory = temporaryDirectories("tunnel-ui-");

beforeAll(async () => {
  const dir = temporaryDirectory();
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>t</title>");
  writeFileSync(join(dir, "assets", "app-abc123.js"), script);
  const files = new StaticFiles(dir);
  const server = createServer((req, res) => {
    if (!files.serve(req, res, (req.url ?? "/").split("?")[0] as string)) res.writeHead(404).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

function get(
  path: string,
  encoding?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(`${base}${path}`, { headers: encoding ? { "accept-encoding": encoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    })
      .on("error", reject)
      .end();
  });
}

describe("StaticFiles", () => {
  it("serves index.html uncached and hashed assets immutable", async () => {
    const index = await get("/");
    expect(index.headers["cache-control"]).toBe("no-cache");
    expect(index.headers["content-type"]).toBe("text/html; charset=utf-8");
    const asset = await get("/assets/app-abc123.js");
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(asset.body.toString()).toBe(script);
    expect((await get("/assets/missing.js")).status).toBe(404);
  });

  it("sends brotli or gzip when the client takes it, the same bytes once decompressed", async () => {
    const br = await get("/assets/app-abc123.js", "gzip, deflate, br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("accept-encoding");
    expect(br.body.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(br.body).toString()).toBe(script);
    const gzip = await get("/assets/app-abc123.js", "gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString()).toBe(script);
    expect((await get("/assets/app-abc123.js", "identity")).headers["content-encoding"]).toBeUndefined();
  });
});

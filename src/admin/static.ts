// The dashboard's static files, built by `npm run build` into dist/admin/ui: index.html (never cached, so a
// new release is picked up at once) and content-hashed assets under /assets/ (cached for a year). Files are
// read once at start-up; nothing on disk is touched per request.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where `npm run build` puts the dashboard, from src/admin as from dist/admin. */
export const UI_DIR = fileURLToPath(new URL("../../dist/admin/ui/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

/** No inline script or style, nothing from elsewhere: only the dashboard's own files and its API. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

interface StaticFile {
  body: Buffer;
  type: string;
  cache: string;
}

export class StaticFiles {
  private readonly files = new Map<string, StaticFile>();

  constructor(dir = UI_DIR) {
    if (!existsSync(join(dir, "index.html"))) return;
    this.files.set("/", {
      body: readFileSync(join(dir, "index.html")),
      type: TYPES[".html"] as string,
      cache: "no-cache",
    });
    const assets = join(dir, "assets");
    if (!existsSync(assets)) return;
    for (const name of readdirSync(assets)) {
      this.files.set(`/assets/${name}`, {
        body: readFileSync(join(assets, name)),
        type: TYPES[extname(name)] ?? "application/octet-stream",
        cache: "public, max-age=31536000, immutable",
      });
    }
  }

  get built(): boolean {
    return this.files.has("/");
  }

  /** Serves the file at `path` if there is one; returns false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const file = this.files.get(path === "/index.html" ? "/" : path);
    if (!file || (req.method !== "GET" && req.method !== "HEAD")) return false;
    res.writeHead(200, {
      "content-type": file.type,
      "content-length": file.body.length,
      "cache-control": file.cache,
    });
    res.end(req.method === "HEAD" ? undefined : file.body);
    return true;
  }
}

// The dashboard's static files, built by `npm run build` into dist/admin/ui: index.html (never cached, so a
// new release is picked up at once) and content-hashed assets under /assets/ (cached for a year). Files are
// read and compressed (brotli, gzip) once at start-up; nothing on disk is touched, nothing compressed, per
// request.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, gzipSync } from "node:zlib";

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
  /** The body compressed, for text types where that pays. */
  br?: Buffer;
  gzip?: Buffer;
}

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json"]);

function file(body: Buffer, extension: string, cache: string): StaticFile {
  const entry: StaticFile = { body, type: TYPES[extension] ?? "application/octet-stream", cache };
  if (COMPRESSIBLE.has(extension) && body.length > 1024) {
    entry.br = brotliCompressSync(body);
    entry.gzip = gzipSync(body, { level: 9 });
  }
  return entry;
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
      this.files.set(
        `/assets/${name}`,
        file(readFileSync(join(assets, name)), extname(name), "public, max-age=31536000, immutable"),
      );
    }
  }

  get built(): boolean {
    return this.files.has("/");
  }

  /** Serves the file at `path` if there is one; returns false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const found = this.files.get(path === "/index.html" ? "/" : path);
    if (!found || (req.method !== "GET" && req.method !== "HEAD")) return false;
    const accepted = req.headers["accept-encoding"] ?? "";
    const encoding =
      found.br && /\bbr\b/.test(accepted) ? "br" : found.gzip && /\bgzip\b/.test(accepted) ? "gzip" : null;
    const body =
      encoding === "br" ? (found.br as Buffer) : encoding === "gzip" ? (found.gzip as Buffer) : found.body;
    res.writeHead(200, {
      "content-type": found.type,
      "content-length": body.length,
      "cache-control": found.cache,
      ...(found.br && { vary: "accept-encoding" }),
      ...(encoding && { "content-encoding": encoding }),
    });
    res.end(req.method === "HEAD" ? undefined : body);
    return true;
  }
}

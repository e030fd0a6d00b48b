// The public listener's certificate and key, read from files and re-read when they change on disk — as
// cert-manager renews them into a Kubernetes Secret volume, which swaps a symlink rather than writing the
// files. Polling stat() follows symlinks and sees such swaps, where fs.watch may not. A pair that does not
// load (half-written, mismatched) leaves the current one in place and is tried again at the next change.

import { readFileSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import type { Server } from "node:https";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import type { Logger } from "pino";
import { ConfigError } from "../config/config-error.js";

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

const POLL_MS = 5000;

export function readTlsFiles(files: TlsFiles): SecureContextOptions {
  const options = { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) };
  // Fails here, with the reason, if the two do not belong together.
  createSecureContext(options);
  return options;
}

/** What tells a changed file from the same one: a swapped symlink changes the inode, a rewrite the mtime. */
function signature(stat: { mtimeMs: number; ino: number; size: number }): string {
  return `${stat.mtimeMs}:${stat.ino}:${stat.size}`;
}

/**
 * Calls `apply` with the new pair whenever either file changes; returns a function that stops watching.
 * The baseline is taken synchronously here, not by the first poll: fs.watchFile takes its own on a thread
 * of the pool, and a change landing before that first stat would never be seen.
 */
export function watchTlsFiles(
  files: TlsFiles,
  apply: (options: SecureContextOptions) => void,
  onError: (error: Error) => void,
  pollMs = POLL_MS,
): () => void {
  const paths = [files.certFile, files.keyFile];
  const seen = (): string[] =>
    paths.map((path) => {
      try {
        return signature(statSync(path));
      } catch {
        return "missing";
      }
    });
  let last = seen().join("|");
  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      const now = (await Promise.all(paths.map((path) => stat(path).then(signature, () => "missing")))).join(
        "|",
      );
      if (now === last) return;
      last = now;
      try {
        apply(readTlsFiles(files));
      } catch (error) {
        onError(error as Error);
      }
    } finally {
      polling = false;
    }
  };
  const timer = setInterval(() => void poll(), pollMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The certificate and key, or a configuration error naming the settings (not a bug's internal_error). */
export function loadTls(files: TlsFiles, origin: (setting: string) => string): SecureContextOptions {
  try {
    return readTlsFiles(files);
  } catch (error) {
    throw new ConfigError(
      `cannot load the TLS certificate and key (tls.certFile ${files.certFile} from ${origin("tls.certFile")}, ` +
        `tls.keyFile ${files.keyFile} from ${origin("tls.keyFile")}): ${(error as Error).message}`,
    );
  }
}

/** Reloads the certificate when its files change (cert-manager's renewals), keeping the old on a bad pair. */
export function watchTls(files: TlsFiles, server: Server, logger: Logger): () => void {
  return watchTlsFiles(
    files,
    (options) => {
      server.setSecureContext(options);
      logger.info({ cert: files.certFile }, "TLS certificate reloaded");
    },
    (error) =>
      logger.error(
        { err: error.message, cert: files.certFile },
        "TLS files changed but do not load; keeping the current ones",
      ),
  );
}

// The public listener's certificate and key, read from files and re-read when they change on disk — as
// cert-manager renews them into a Kubernetes Secret volume, which swaps a symlink rather than writing the
// files. Polling stat() follows symlinks and sees such swaps, where fs.watch may not. A pair that does not
// load (half-written, mismatched) leaves the current one in place and is tried again at the next change.

import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { Server } from "node:https";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import { ConfigError } from "../config/config-error.js";
import type { Logger } from "../observability/logger.js";

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

/** Calls `apply` with the new pair whenever either file changes; returns a function that stops watching. */
export function watchTlsFiles(
  files: TlsFiles,
  apply: (options: SecureContextOptions) => void,
  onError: (error: Error) => void,
  pollMs = POLL_MS,
): () => void {
  const reload = (current: { mtimeMs: number; ino: number }, previous: { mtimeMs: number; ino: number }) => {
    if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino) return;
    try {
      apply(readTlsFiles(files));
    } catch (error) {
      onError(error as Error);
    }
  };
  watchFile(files.certFile, { interval: pollMs, persistent: false }, reload);
  watchFile(files.keyFile, { interval: pollMs, persistent: false }, reload);
  return () => {
    unwatchFile(files.certFile, reload);
    unwatchFile(files.keyFile, reload);
  };
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

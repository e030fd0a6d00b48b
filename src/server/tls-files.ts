// The public listener's certificate and key, read from files and re-read when they change on disk — as
// cert-manager renews them into a Kubernetes Secret volume, which swaps a symlink rather than writing the
// files. Polling stat() follows symlinks and sees such swaps, where fs.watch may not. A pair that does not
// load (half-written, mismatched) leaves the current one in place and is tried again at the next change.

import { readFileSync, unwatchFile, watchFile } from "node:fs";
import { createSecureContext, type SecureContextOptions } from "node:tls";

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

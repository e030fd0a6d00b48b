// The public listener's certificate and key: read and checked to belong together, and re-read when either
// file changes on disk — a pair that does not load reported and left aside until the next change.

import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SecureContextOptions } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error.js";
import { loadTls, readTlsFiles, watchTlsFiles } from "../../src/server/tls-files.js";
import { makeCertificate } from "../helpers/certificate.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

const directory = temporaryDirectories("tunnel-tls-files-");
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe("readTlsFiles", () => {
  it("reads a certificate and its key", () => {
    const pair = makeCertificate("first", directory());
    const options = readTlsFiles(pair);
    expect(String(options.cert)).toBe(pair.cert);
    expect(String(options.key)).toContain("PRIVATE KEY");
  });

  it("refuses a certificate and a key that do not belong together, and files that are missing", () => {
    const one = makeCertificate("one", directory());
    const other = makeCertificate("other", directory());
    expect(() => readTlsFiles({ certFile: one.certFile, keyFile: other.keyFile })).toThrow(
      /key values mismatch/,
    );
    expect(() => readTlsFiles({ certFile: join(directory(), "missing.crt"), keyFile: one.keyFile })).toThrow(
      /ENOENT/,
    );
  });
});

describe("watchTlsFiles", () => {
  it("applies a new pair when the files change, reports one that does not load, and stops when told", async () => {
    const dir = directory();
    const files = makeCertificate("first", dir);
    const applied: SecureContextOptions[] = [];
    const errors: Error[] = [];
    const stop = watchTlsFiles(
      files,
      (options) => applied.push(options),
      (error) => errors.push(error),
      10,
    );
    stops.push(stop);

    const second = makeCertificate("second", dir);
    await waitUntil(() => applied.some((options) => String(options.cert) === second.cert), "the second pair");

    // A half-written key: the pair no longer loads, and the current one stays.
    writeFileSync(`${files.keyFile}.new`, "-----BEGIN PRIVATE KEY-----\ntruncated");
    renameSync(`${files.keyFile}.new`, files.keyFile);
    // (Renaming a new pair's two files in turn may also be seen half-done, as a mismatch, and reported.)
    await waitUntil(
      () => errors.some((error) => /DECODER routines/.test(error.message)),
      "the bad key to be reported",
    );
    const appliedBefore = applied.length;

    stop();
    // Another watcher sees the next change; the stopped one must not.
    const seenByOther: SecureContextOptions[] = [];
    stops.push(
      watchTlsFiles(
        files,
        (options) => seenByOther.push(options),
        () => {},
        10,
      ),
    );
    const third = makeCertificate("third", dir);
    await waitUntil(
      () => seenByOther.some((options) => String(options.cert) === third.cert),
      "the third pair",
    );
    expect(applied).toHaveLength(appliedBefore);
  });

  it("sees a change made right after watching starts, before any poll has run", async () => {
    // fs.watchFile took its baseline on the first poll, so a change this early became the baseline and
    // was never reported (a CI run timed out on it).
    const files = makeCertificate("first", directory());
    const errors: Error[] = [];
    stops.push(
      watchTlsFiles(
        files,
        () => {},
        (error) => errors.push(error),
        10,
      ),
    );
    writeFileSync(`${files.keyFile}.new`, "not a key");
    renameSync(`${files.keyFile}.new`, files.keyFile);
    await waitUntil(() => errors.length > 0, "the early change to be reported");
    expect(errors[0]?.message).toMatch(/DECODER routines|no start line/);
  });
});

describe("loadTls", () => {
  it("refuses files that do not load with a configuration error naming both settings and where they came from", () => {
    const pair = makeCertificate("one", directory());
    const missing = { certFile: join(directory(), "missing.crt"), keyFile: pair.keyFile };
    expect(() => loadTls(missing, (setting) => `${setting} in config.yaml`)).toThrow(ConfigError);
    expect(() => loadTls(missing, (setting) => `${setting} in config.yaml`)).toThrow(
      /cannot load the TLS certificate and key \(tls\.certFile .*missing\.crt from tls\.certFile in config\.yaml, tls\.keyFile .* from tls\.keyFile in config\.yaml\): .*ENOENT/,
    );
    expect(String(loadTls(pair, () => "").cert)).toBe(pair.cert);
  });
});

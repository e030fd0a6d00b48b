// Where a process's main-thread CPU goes, by owner: a V8 CPU profile (the inspector's Profiler.stop result,
// or a .cpuprofile file) summed by who is responsible for each sample — the gateway's own code, each
// library, Node's core, garbage collection. A sample in a native frame (a system call, JSON.parse, a
// regular expression) counts for the nearest JavaScript frame that called it: writev made by Node's
// stream code is Node's, JSON.parse called by the gateway is the gateway's. And how much a process allocates,
// from V8's sampling heap profile.

/** The parts of a V8 CPU profile read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  /** Microseconds from the previous sample to this one. */
  timeDeltas: number[];
}

/** The parts of a V8 sampling heap profile read here (HeapProfiler.stopSampling's result). */
export interface HeapProfile {
  head: HeapNode;
}
interface HeapNode {
  /** Bytes allocated by this function itself, scaled by the profiler from its samples. */
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated while the profile ran (garbage included, when the profiler was asked to keep it). */
export function allocatedBytes(profile: HeapProfile): number {
  let total = 0;
  const pending = [profile.head];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    total += node.selfSize;
    pending.push(...node.children);
  }
  return total;
}

/** Who a script URL belongs to: "gateway", a package name, "node", or null for a frame without a script. */
export function ownerOfUrl(url: string): string | null {
  // Native functions have no script, or a made-up name for one.
  if (!url.startsWith("file:") && !url.startsWith("/") && !url.startsWith("node:")) return null;
  const modules = url.lastIndexOf("/node_modules/");
  if (modules !== -1) {
    const [scope, name] = url.slice(modules + "/node_modules/".length).split("/");
    return scope?.startsWith("@") ? `${scope}/${name}` : (scope ?? null);
  }
  if (url.startsWith("node:")) return "node";
  return "gateway";
}

/** Frames V8 names itself rather than by a function: time outside JavaScript. */
const SPECIAL = new Map([
  ["(garbage collector)", "garbage collection"],
  ["(program)", "V8 and Node outside JavaScript"],
  ["(idle)", "idle"],
  ["(root)", "V8 and Node outside JavaScript"],
]);

type Frame = CpuProfile["nodes"][number]["callFrame"];

/** The owner of a frame: V8's own frames by name, scripts by URL, null for native code (its caller's). */
function ownerOfFrame(frame: Frame): string | null {
  return SPECIAL.get(frame.functionName) ?? ownerOfUrl(frame.url);
}

/** A file of the gateway's own, as its path under dist/ (or src/). */
export function gatewayFile(url: string): string {
  const at = Math.max(url.lastIndexOf("/dist/"), url.lastIndexOf("/src/"));
  return at === -1 ? url : url.slice(url.indexOf("/", at + 1) + 1);
}

/** Parts of proxy/ that are not stages, each a folder of its own. */
const PROXY_PARTS = new Set(["relay", "meters", "sharing", "request"]);
/** Files of proxy/stages/ that serve one stage: the body shaping is send's. */
const STAGE_OF_FILE = new Map([["forwarded-body", "send"]]);
/** Top-level folders named as parts of their own. */
const LAYERS = new Set(["billing", "store", "observability"]);

/**
 * Where a file of the gateway's own (as gatewayFile gives it) sits on the request path: `stage <name>` for
 * proxy/stages/<name>.js, `proxy/<part>` for proxy's relay, meters, sharing and request folders, the runner
 * (proxy/pipeline.js) and the ending (proxy/request-end.js) by name, billing, store and observability as
 * theirs, and any other file by its top-level folder ("other" for one at the top).
 */
export function gatewayPart(file: string): string {
  const segments = file.split("/");
  const [top, second, third] = segments;
  if (top === "proxy" && second !== undefined) {
    const base = (name: string) => name.replace(/\.[cm]?[jt]s$/, "");
    if (second === "stages" && third !== undefined) {
      const name = base(third);
      return `stage ${STAGE_OF_FILE.get(name) ?? name}`;
    }
    if (PROXY_PARTS.has(second) && third !== undefined) return `proxy/${second}`;
    if (third === undefined) {
      const name = base(second);
      if (name === "pipeline") return "pipeline (the stage runner)";
      if (name === "request-end") return "ending (settle, record)";
      return `proxy/${name}`;
    }
    return `proxy/${second}`;
  }
  if (top !== undefined && LAYERS.has(top)) return top;
  return segments.length > 1 && top !== undefined ? top : "other";
}

/** Microseconds by the part of the request path (gatewayPart) from microseconds by file. */
export function cpuByGatewayPart(byFile: ReadonlyMap<string, number>): Map<string, number> {
  const parts = new Map<string, number>();
  for (const [file, micros] of byFile) {
    const part = gatewayPart(file);
    parts.set(part, (parts.get(part) ?? 0) + micros);
  }
  return parts;
}

/** Microseconds of main-thread CPU by owner, idle excluded. */
export function cpuByOwner(profile: CpuProfile): Map<string, number> {
  return breakdown(profile, ownerOfFrame);
}

/** Microseconds of main-thread CPU in the gateway's own code, by file. */
export function cpuByGatewayFile(profile: CpuProfile): Map<string, number> {
  const byFile = breakdown(profile, (frame) => {
    const owner = ownerOfFrame(frame);
    return owner === "gateway" ? `gateway:${gatewayFile(frame.url)}` : owner;
  });
  return new Map(
    [...byFile]
      .filter(([label]) => label.startsWith("gateway:"))
      .map(([label, micros]) => [label.slice("gateway:".length), micros]),
  );
}

/**
 * Sums the samples by the label of the innermost frame that has one (native frames take their caller's). A
 * sample's time is the delta to the next sample (the time until the profiler looked again), not the one
 * before it, which would count the idle wait that ended with the sample against whatever ran first after it.
 */
function breakdown(profile: CpuProfile, labelOf: (frame: Frame) => string | null): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const labels = new Map<number, string>();
  const label = (id: number): string => {
    const known = labels.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    const parent = parentOf.get(id);
    const found =
      (node && labelOf(node.callFrame)) ??
      (parent === undefined ? "V8 and Node outside JavaScript" : label(parent));
    labels.set(id, found);
    return found;
  };
  const totals = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const micros = profile.timeDeltas[i + 1] ?? 0;
    const who = label(profile.samples[i] as number);
    if (who !== "idle") totals.set(who, (totals.get(who) ?? 0) + micros);
  }
  return totals;
}

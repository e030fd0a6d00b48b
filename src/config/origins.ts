// Where each setting came from — a line of the configuration file, a TUNNEL_* variable, a command-line flag,
// or the built-in default — so that a message about a setting (a bad value, a port already taken) can send
// the reader to the place to change it.

import { isMap, isScalar, isSeq, type LineCounter, type Document as YamlDocument } from "yaml";

/** One setting given outside the file, remembered so that a message can name where it came from. */
export interface Override {
  path: readonly string[];
  value: unknown;
  /** "TUNNEL_PORT", "--port", … */
  source: string;
}

export class SettingOrigins {
  constructor(
    /** The configuration file, as given (or config/default.yaml). */
    readonly file: string,
    private readonly document: YamlDocument | null,
    private readonly lines: LineCounter | null,
    /** Variables then flags, in the order they were applied: the last one of a path is in effect. */
    private readonly overrides: readonly Override[],
  ) {}

  /** Where the value at `path` came from: `--port`, `TUNNEL_PORT`, `/etc/gateway.yaml line 12`, or `default`. */
  of(path: readonly (string | number)[]): string {
    const dotted = path.join(".");
    const override = this.overrides.findLast((o) => o.path.join(".") === dotted);
    if (override) return override.source;
    const line = this.lineOf(path);
    return line === null ? "default" : `${this.file} line ${line}`;
  }

  /**
   * Where to look for a problem with the value at `path`: as `of`, but a setting missing from the file (a
   * required one) is placed at the line of the nearest section that is there.
   */
  near(path: readonly (string | number)[]): string {
    for (let depth = path.length; depth > 0; depth--) {
      const origin = this.of(path.slice(0, depth));
      if (origin !== "default") return origin;
    }
    return "default";
  }

  /** Where an unknown setting `key` of the mapping at `path` is written. */
  ofKey(path: readonly (string | number)[], key: string): string {
    return this.near([...path, key]);
  }

  /** The line where the setting at `path` is written: its key's line, or its item's in a list. */
  private lineOf(path: readonly (string | number)[]): number | null {
    if (!this.document || !this.lines || path.length === 0) return null;
    const parent = path.length === 1 ? this.document.contents : this.document.getIn(path.slice(0, -1), true);
    const last = path[path.length - 1];
    let offset: number | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(last));
      offset = isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
    } else if (isSeq(parent)) {
      const item = parent.items[Number(last)] as { range?: [number, number, number] } | undefined;
      offset = item?.range?.[0];
    }
    return offset === undefined ? null : this.lines.linePos(offset).line;
  }
}

/**
 * Where every setting of the validated `config` came from, by dotted path ("metrics.port"): what `of` answers,
 * written out for a process that holds no YAML document (config/validation-worker.ts sends it to `serve`).
 * Sections and lists are walked to every value; a key holding a dot cannot be named by a dotted path and is
 * left out with what is under it.
 */
export function originsBySetting(config: object, origins: SettingOrigins): Record<string, string> {
  const table: Record<string, string> = {};
  const visit = (value: unknown, path: string[]) => {
    if (path.length > 0) table[path.join(".")] = origins.of(path);
    if (typeof value !== "object" || value === null) return;
    for (const [key, inner] of Object.entries(value)) if (!key.includes(".")) visit(inner, [...path, key]);
  };
  visit(config, []);
  return table;
}

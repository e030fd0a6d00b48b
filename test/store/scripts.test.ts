import { describe, expect, it } from "vitest";
import { expandIncludes, loadScripts } from "../../src/store/scripts.js";

describe("Lua script loading", () => {
  it("expands includes in dependency order, each fragment once", () => {
    const fragments: Record<string, string> = {
      a: '--- @include "b"\nlocal function a() return b() end',
      b: "local function b() return 1 end",
    };
    const lua = expandIncludes(
      '--- @include "a"\n--- @include "b"\nreturn a()',
      (name) => fragments[name] as string,
    );
    expect(lua).toBe("local function b() return 1 end\nlocal function a() return b() end\n\nreturn a()");
  });

  it("names each script by its file and takes its number of keys from the name (n: the caller's count)", () => {
    const scripts = new Map(loadScripts().map((s) => [s.name, s]));
    expect(scripts.get("reserve")?.numberOfKeys).toBe(5);
    expect(scripts.get("settle")?.numberOfKeys).toBeNull();
    for (const script of scripts.values()) {
      expect(script.lua).not.toContain("@include");
      // Every script documents its keys and arguments in its header.
      expect(script.lua).toMatch(/^--\[\[/);
      expect(script.lua).toContain(script.numberOfKeys !== 0 ? "KEYS[1]" : "");
    }
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editMembers, scanJson } from "../../../src/proxy/request/json-scan.js";

const scan = (text: string, maxDepth = 64) => scanJson(Buffer.from(text), maxDepth);
const edit = (text: string, edits: [string, string | null][]) =>
  editMembers(Buffer.from(text), scan(text), new Map(edits)).toString();

describe("scanJson", () => {
  it("finds the top-level members and their values, skipping strings and nested values", () => {
    const text = '{ "a" : 1 , "b":"x,}\\"{" ,"c":{"d":[1,{"e":2}]}, "é\\u0041":null }';
    const result = scan(text);
    expect(result.isObject).toBe(true);
    expect(result.depth).toBe(4);
    // Offsets are of bytes ("é" takes two).
    const bytes = Buffer.from(text);
    expect(result.members.map((m) => [m.key, bytes.toString("utf8", m.valueStart, m.valueEnd)])).toEqual([
      ["a", "1"],
      ["b", '"x,}\\"{"'],
      ["c", '{"d":[1,{"e":2}]}'],
      ["éA", "null"],
    ]);
  });

  it("measures depth without recursion and stops at the first level past the bound", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(scan(deep, 64).depth).toBe(65);
    expect(scan(`{"a":${deep}}`, 1000).depth).toBe(1001);
    expect(scan("[[1],[2,[3]]]").depth).toBe(3);
    expect(scan('"[[["').depth).toBe(0);
  });

  it("reports no members for a text that is not an object", () => {
    for (const text of ["[1,2]", "3", '"a"', "", "  "])
      expect(scan(text)).toMatchObject({ members: [], isObject: false });
  });
});

describe("editMembers", () => {
  it("replaces, removes and appends members, leaving every other byte of their values as it was", () => {
    const text = '{"model":"m","max_tokens":null,"seed":12345678901234567890,"x":1.50}';
    expect(edit(text, [["max_tokens", "100"]])).toBe(
      '{"model":"m","max_tokens":100,"seed":12345678901234567890,"x":1.50}',
    );
    expect(edit(text, [["stream_options", '{"include_usage":true}']])).toBe(
      '{"model":"m","max_tokens":null,"seed":12345678901234567890,"x":1.50,"stream_options":{"include_usage":true}}',
    );
    expect(
      edit(text, [
        ["max_tokens", null],
        ["model", null],
      ]),
    ).toBe('{"seed":12345678901234567890,"x":1.50}');
    expect(edit("{}", [["a", "1"]])).toBe('{"a":1}');
    expect(edit('{"usage":{"a":1}}', [["usage", null]])).toBe("{}");
  });

  it("edits every occurrence of a duplicated key, so that no parser sees the old value", () => {
    expect(edit('{"n":1,"max_tokens":-1,"max_tokens":null}', [["max_tokens", "5"]])).toBe(
      '{"n":1,"max_tokens":5,"max_tokens":5}',
    );
  });

  it("gives what JSON.parse reads as the object with the edits applied, for any object", () => {
    const key = fc.string({ maxLength: 6 });
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        fc.array(fc.tuple(key, fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: null })), { maxLength: 4 }),
        fc.boolean(),
        (object, changes, pretty) => {
          const text = JSON.stringify(object, null, pretty ? 2 : undefined);
          const edits = new Map(changes.map(([k, v]) => [k, v === null ? null : JSON.stringify(v)]));
          // What JSON.parse reads of the original (JSON has no -0: a generated -0 reads back as 0).
          const expected: Record<string, unknown> = JSON.parse(text);
          for (const [k, v] of edits) {
            if (v === null) delete expected[k];
            else expected[k] = JSON.parse(v);
          }
          const out = editMembers(Buffer.from(text), scanJson(Buffer.from(text), 64), edits).toString();
          expect(JSON.parse(out)).toEqual(expected);
        },
      ),
    );
  });
});

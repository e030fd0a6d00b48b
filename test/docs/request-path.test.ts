// The request's path as docs/development.md draws it is the path the code runs: the table of stages there is
// proxy/pipeline.ts's PATH (the stages, the exchange's relay, the ending's stages), in order and with the same
// words, and the table of events is core/channels.ts's declared list of every channel (the identity events'
// among them).
// The README's "How a request flows" names the same steps in the same order.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EVERY_CHANNEL } from "../../src/core/channels.js";
import { PATH, STAGES } from "../../src/proxy/pipeline.js";
import { ENDING } from "../../src/proxy/request-end.js";

const doc = readFileSync(new URL("../../docs/development.md", import.meta.url), "utf8");
const section = doc.slice(doc.indexOf("### The request's path"), doc.indexOf("## Tests"));

describe("docs/development.md's request path", () => {
  it("lists the runner's stages, in order, with what each does", () => {
    const rows = [...section.matchAll(/^\| (\d+) \| `([\w-]+)` \| (.+) \|$/gm)].map((m) => [
      Number(m[1]),
      m[2],
      m[3],
    ]);
    expect(rows).toEqual(PATH.map((stage, i) => [i + 1, stage.name, stage.does]));
  });

  it("draws the whole path: the stages, then the relay, then the ending's stages", () => {
    expect(PATH.map((stage) => stage.name)).toEqual([
      ...STAGES.map((stage) => stage.name),
      "relay",
      ...ENDING.map((stage) => stage.name),
    ]);
  });

  it("lists every declared event, the identity events' included, with what it tells", () => {
    const rows = [...section.matchAll(/^\| `(tunnel-gateway:[\w.:]+)` \| (.+) \|$/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(rows).toEqual(EVERY_CHANNEL.map(({ channel, tells }) => [channel, tells]));
  });
});

describe("README's How a request flows", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const flow = readme.slice(readme.indexOf("## How a request flows"), readme.indexOf("## Documentation"));

  it("numbers the listener and then every step of the path, in the runner's order", () => {
    const steps = [...flow.matchAll(/^(\d+)\. \*\*`([\w-]+)`\*\*/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(steps).toEqual(["listener", ...PATH.map((stage) => stage.name)].map((name, i) => [i + 1, name]));
  });

  it("draws the same steps in its picture", () => {
    const picture = /```\n(listener ─► .+)\n/.exec(flow)?.[1] ?? "";
    expect(picture.split(" ─► ")).toEqual(["listener", ...PATH.map((stage) => stage.name)]);
  });
});

// The time-to-first-byte profile (bench/ttfb-profile.ts): each sample of a CPU profile counted for the interval
// between two of one request's moments it fell in, by who ran, native frames for the JavaScript that called them.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Moments, timeBetween } from "../../bench/ttfb-profile.js";

const NODES = [
  { id: 1, callFrame: { functionName: "(root)", url: "" }, children: [2, 3, 5] },
  { id: 2, callFrame: { functionName: "(idle)", url: "" } },
  {
    id: 3,
    callFrame: { functionName: "authenticate", url: "file:///app/dist/auth/authenticator.js" },
    children: [4],
  },
  { id: 4, callFrame: { functionName: "digest", url: "" } },
  { id: 5, callFrame: { functionName: "web", url: "file:///app/node_modules/http-proxy-3/dist/index.js" } },
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function profileFile(samples: number[], timeDeltas: number[]): string {
  const dir = mkdtempSync(join(tmpdir(), "ttfb-profile-"));
  dirs.push(dir);
  const file = join(dir, "p.cpuprofile");
  writeFileSync(file, JSON.stringify({ nodes: NODES, samples, timeDeltas, startTime: 1000 }));
  return file;
}

describe("timeBetween", () => {
  it("counts each sample, for the time to the next, in the interval of the request it fell in", () => {
    // Samples at 1010 (idle), 1020 (authenticate's digest), 1030 (http-proxy-3), 1040 (idle), 1050.
    const file = profileFile([2, 4, 5, 2, 2], [10, 10, 10, 10, 10]);
    const record = { hr: 1005, authenticate: 20, upstreamCreated: 40 };
    const times = timeBetween(file, [record], ["arrival", "authenticate", "upstreamCreated"]);
    expect(times).toEqual([
      // 1005–1025: the idle sample at 1010 and the digest at 1020, counted for authenticator.js.
      {
        interval: "arrival → authenticate",
        perRequest: 20,
        by: [
          ["(idle)", 10],
          ["auth/authenticator.js", 10],
        ],
      },
      // 1025–1045: http-proxy-3 at 1030 and the idle sample at 1040.
      {
        interval: "authenticate → upstreamCreated",
        perRequest: 20,
        by: [
          ["http-proxy-3", 10],
          ["(idle)", 10],
        ],
      },
    ]);
  });

  it("skips the moments a request lacks, and averages each interval over the requests that had it", () => {
    const file = profileFile([5, 5, 5, 5, 5], [10, 10, 10, 10, 10]);
    const records: Moments[] = [
      { hr: 1005, upstreamCreated: 20 },
      { hr: 1005, bodyRead: 10, upstreamCreated: 20 },
    ];
    const times = timeBetween(file, records, ["arrival", "bodyRead", "upstreamCreated"]);
    expect(times.map((t) => [t.interval, t.perRequest])).toEqual([
      ["arrival → upstreamCreated", 20],
      ["arrival → bodyRead", 10],
      ["bodyRead → upstreamCreated", 10],
    ]);
  });
});

// Issue 33's targets as the generated page states them: each on the proxy-alone figures (the gateway's
// processes and its Redis against the bare proxy's process), for the gateway started as the README starts it
// and as the image and the chart do, with whether it is met.

import { met, signedMs, signedPercent, whole } from "./format.js";
import type { BenchReport, PathFigures, StreamFigures } from "./report.js";

/** One target's row: the figure and whether it is met, for each way of starting the gateway. */
type Judged = [shown: string, ok: boolean] | null;
const judged = (row: string, target: string, readme: Judged, image: Judged) =>
  `| ${row} | ${target} | ${readme?.[0] ?? "—"} | ${readme ? met(readme[1]) : ""} | ${image?.[0] ?? "—"} | ${image ? met(image[1]) : ""} |`;

/** The targets (33), on the proxy-alone figures: the gateway's processes and its Redis, the bare proxy's. */
export function targetLines(report: BenchReport): string[] {
  const { bare, gateway, image, streams: s, otelOn } = report;
  const own = (r: PathFigures) => r.cpu + (r.redisCpu ?? 0);
  const x = (n: number) => `${n.toFixed(2)}×`;
  const perWay = (pick: (r: PathFigures) => Judged) => [pick(gateway), pick(image)] as const;
  const rows = [
    judged(
      "small requests: throughput",
      "≥ 0.75× the bare proxy",
      ...perWay((r) => [x(r.rps / bare.rps), r.rps / bare.rps >= 0.75]),
    ),
    judged(
      "small requests: CPU per request (gateway + its Redis)",
      "≤ 1.5×",
      ...perWay((r) => [x(own(r) / bare.cpu), own(r) / bare.cpu <= 1.5]),
    ),
    judged(
      "small requests: p50 added @ 500/s",
      "≤ +0.15 ms",
      ...perWay((r) => [signedMs(r.p50 - bare.p50), r.p50 - bare.p50 <= 0.15]),
    ),
    judged(
      "small requests: p99 @ 500/s",
      "≤ 2×",
      ...perWay((r) => [x(r.p99 / bare.p99), r.p99 / bare.p99 <= 2]),
    ),
    judged(
      "stream TTFB added",
      "≤ +0.3 ms",
      ...perWay((r) => [signedMs(r.ttfb - bare.ttfb), r.ttfb - bare.ttfb <= 0.3]),
    ),
  ];
  if (s) {
    const cpu = (g: StreamFigures): Judged => {
      const ratio = (g.proxyCpu as number) / (s.bare.proxyCpu as number);
      return [x(ratio), ratio <= 1.25];
    };
    const p99 = (g: StreamFigures): Judged => [x(g.p99 / s.bare.p99), g.p99 / s.bare.p99 <= 1.5];
    const perStream = (g: StreamFigures): Judged => {
      const [gw, b] = [g.rssPerStream as number, s.bare.rssPerStream as number];
      return [`${whole(gw)} against ${whole(b)} KiB`, gw <= 1.5 * Math.max(b, 1)];
    };
    const idle = (added: number): Judged => [`+${whole(added)} MiB`, added <= 40];
    const after = s.idle.afterWarmup;
    rows.push(
      judged("streams: CPU per event (proxy + its Redis), scan", "≤ 1.25×", cpu(s.scan), cpu(s.imageScan)),
      judged("streams: CPU per event (proxy + its Redis), strip", "≤ 1.25×", cpu(s.strip), null),
      judged("streams: event delay p99, scan", "≤ 1.5×", p99(s.scan), p99(s.imageScan)),
      judged("streams: event delay p99, strip", "≤ 1.5×", p99(s.strip), null),
      judged(
        "idle RSS after warm-up",
        "≤ bare + 40 MiB",
        // The README's way on Node 20 is two processes: the serving one and, waiting for it, the one that
        // relaunched it with the V8 flags (its private memory; the rest of its resident set is shared).
        idle(after.gateway + after.launcher - after.bare),
        idle(after.image - after.bare),
      ),
      judged("RSS per open stream, scan", "≤ 1.5×", perStream(s.scan), perStream(s.imageScan)),
    );
  }
  if (otelOn) {
    const added = (own(otelOn) - own(gateway)) / own(gateway);
    rows.push(
      judged(
        "OpenTelemetry 100 % sampled against off: CPU per request",
        "≤ +15 %",
        [signedPercent(added * 100), added <= 0.15],
        null,
      ),
      judged(
        "OpenTelemetry 100 % sampled against off: p99 @ 500/s",
        "≤ 1.5×",
        [x(otelOn.p99 / gateway.p99), otelOn.p99 / gateway.p99 <= 1.5],
        null,
      ),
    );
  }
  return [
    "Issue 33's targets, on the proxy-alone figures (the gateway's processes and its Redis against the bare " +
      "proxy's process), medians of the interleaved rounds:",
    "",
    "| | target | as the README starts it | | as the image and the chart start it | |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ];
}

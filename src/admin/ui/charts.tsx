// A key's daily usage as uPlot charts (canvas; its element styles are set through CSSOM, which the CSP
// allows): spend as bars and requests as a line, and latency p50/p95. The same numbers are in a table below
// the charts for screen readers and for copying.

import { useCallback, useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import type { DailyUsage } from "./api.js";
import { type Ui, useUi } from "./context.js";
import { dayRange, daySplits } from "./day-axis.js";
import { daySeconds, formatAxisDay } from "./format.js";

/** Days on the x axis from `first` to `last` (seconds), with half a day of room on each side (day-axis.ts). */
export function xScale(first: number, last: number): uPlot.Scale {
  return { time: true, auto: false, range: () => dayRange(first, last) };
}

export function cssColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === "" ? fallback : value;
}

export function baseOptions(width: number): Pick<uPlot.Options, "width" | "height" | "scales" | "tzDate"> {
  return {
    width,
    height: 220,
    scales: {},
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
  };
}

const LABEL_SPACE = 56;

export function xAxis(ui: Ui, stroke: string, grid: string, first: number, last: number): uPlot.Axis {
  return {
    stroke,
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1 },
    space: LABEL_SPACE,
    splits: (u) => daySplits(first, last, u.bbox.width / (window.devicePixelRatio || 1), LABEL_SPACE),
    values: (_u, splits) => splits.map((s) => formatAxisDay(ui.lang, s)),
  };
}

export function xSeries(ui: Ui): uPlot.Series {
  return {
    label: ui.t("usage.col.date"),
    value: (_u, v) => (v === null ? "—" : formatAxisDay(ui.lang, v)),
  };
}

/** The first and last day of a range (seconds at UTC midnight). */
export function ends(days: readonly { date: string }[]): [number, number] {
  return [daySeconds(days[0]?.date ?? "1970-01-01"), daySeconds(days.at(-1)?.date ?? "1970-01-01")];
}

/** The scales of a chart of spend (rubles, from 0) and requests per day. */
export function spendScales(days: readonly { date: string }[]): uPlot.Scales {
  return {
    x: xScale(...ends(days)),
    rub: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    req: {},
  };
}

/** Its axes: the days, rubles on the left, requests (whole numbers only) on the right. */
export function spendAxes(ui: Ui, days: readonly { date: string }[]): uPlot.Axis[] {
  const fg = cssColor("--muted", "#555");
  const grid = cssColor("--grid", "#e3e3e3");
  return [
    xAxis(ui, fg, grid, ...ends(days)),
    {
      scale: "rub",
      stroke: fg,
      grid: { stroke: grid, width: 1 },
      ticks: { stroke: grid, width: 1 },
      size: 76,
      values: (_u, splits) => splits.map((s) => ui.rubShort(s)),
    },
    {
      scale: "req",
      side: 1,
      stroke: fg,
      grid: { show: false },
      ticks: { stroke: grid, width: 1 },
      size: 50,
      values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? ui.num(s) : "")),
    },
  ];
}

type Build = (
  ui: Ui,
  days: DailyUsage[],
  width: number,
) => { options: uPlot.Options; data: uPlot.AlignedData };

const spend: Build = (ui, days, width) => {
  const bar = cssColor("--chart-1", "#1f6feb");
  const line = cssColor("--chart-2", "#c2410c");
  const bars = uPlot.paths.bars?.({ size: [0.6, 28] });
  return {
    options: {
      ...baseOptions(width),
      scales: spendScales(days),
      series: [
        xSeries(ui),
        {
          label: ui.t("chart.spend"),
          scale: "rub",
          stroke: bar,
          fill: `${bar}99`,
          width: 1,
          ...(bars ? { paths: bars } : {}),
          points: { show: false },
          value: (_u, v) => (v === null ? "—" : ui.rub(v)),
        },
        {
          label: ui.t("chart.requests"),
          scale: "req",
          stroke: line,
          width: 2,
          value: (_u, v) => (v === null ? "—" : ui.num(v)),
        },
      ],
      axes: [...spendAxes(ui, days)],
    },
    data: [days.map((d) => daySeconds(d.date)), days.map((d) => d.cost), days.map((d) => d.requests)],
  };
};

const latency: Build = (ui, days, width) => {
  const fg = cssColor("--muted", "#555");
  const grid = cssColor("--grid", "#e3e3e3");
  const p50 = cssColor("--chart-1", "#1f6feb");
  const p95 = cssColor("--chart-3", "#9333ea");
  const series = (label: string, stroke: string, dash?: number[]): uPlot.Series => ({
    label,
    stroke,
    width: 2,
    ...(dash ? { dash } : {}),
    points: { show: true, size: 6, fill: stroke },
    value: (_u, v) => ui.ms(v),
  });
  return {
    options: {
      ...baseOptions(width),
      scales: { x: xScale(...ends(days)), y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      series: [xSeries(ui), series(ui.t("chart.p50"), p50), series(ui.t("chart.p95"), p95, [6, 4])],
      axes: [
        xAxis(ui, fg, grid, ...ends(days)),
        {
          stroke: fg,
          grid: { stroke: grid, width: 1 },
          ticks: { stroke: grid, width: 1 },
          size: 70,
          values: (_u, splits) => splits.map((s) => ui.ms(s)),
        },
      ],
    },
    data: [
      days.map((d) => daySeconds(d.date)),
      days.map((d) => d.p50_latency_ms),
      days.map((d) => d.p95_latency_ms),
    ],
  };
};

/** A uPlot chart that follows its box's width; `build` makes its options and data for a width. */
export function Plot({
  build,
  label,
}: {
  build: (width: number) => { options: uPlot.Options; data: uPlot.AlignedData };
  label: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = () => Math.max(280, Math.floor(element.clientWidth));
    const { options, data } = build(width());
    const plot = new uPlot(options, data, element);
    const resize = new ResizeObserver(() => {
      if (width() !== plot.width) plot.setSize({ width: width(), height: plot.height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [build]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}

function Chart({ days, build, label }: { days: DailyUsage[]; build: Build; label: string }) {
  const ui = useUi();
  const make = useCallback((width: number) => build(ui, days, width), [ui, days, build]);
  return <Plot build={make} label={label} />;
}

export function UsageCharts({ days }: { days: DailyUsage[] }) {
  const ui = useUi();
  const { t } = ui;
  const range =
    days.length > 0
      ? t("key.range", { from: ui.day(days[0]?.date ?? ""), to: ui.day(days.at(-1)?.date ?? "") })
      : "";
  return (
    <>
      <div class="charts">
        <figure>
          <figcaption>
            <strong>{t("key.usage")}</strong> <span class="muted">{range}</span>
          </figcaption>
          <Chart days={days} build={spend} label={`${t("key.usage")}. ${range}`} />
        </figure>
        <figure>
          <figcaption>
            <strong>{t("key.latency")}</strong> <span class="muted">{range}</span>
          </figcaption>
          <Chart days={days} build={latency} label={`${t("key.latency")}. ${range}`} />
        </figure>
      </div>
      <details class="numbers">
        <summary>{t("chart.numbers")}</summary>
        <UsageTable days={days} />
      </details>
    </>
  );
}

/** A day's first cells in a usage table, the key's and the account's alike: date, requests, tokens, cost, errors. */
export function DayCells({
  d,
}: {
  d: Pick<DailyUsage, "date" | "requests" | "prompt_tokens" | "completion_tokens" | "cost" | "errors">;
}) {
  const { day, num, rub } = useUi();
  return (
    <>
      <th scope="row" class="nowrap">
        {day(d.date)}
      </th>
      <td class="num">{num(d.requests)}</td>
      <td class="num nowrap">
        {num(d.prompt_tokens)} / {num(d.completion_tokens)}
      </td>
      <td class="num nowrap">{rub(d.cost)}</td>
      <td class="num">{num(d.errors)}</td>
    </>
  );
}

function UsageTable({ days }: { days: DailyUsage[] }) {
  const { t, num, ms } = useUi();
  const used = days.filter((d) => d.requests > 0);
  if (used.length === 0) return <p class="muted">{t("key.noUsage")}</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t("usage.col.date")}</th>
            <th scope="col">{t("usage.col.requests")}</th>
            <th scope="col">{t("usage.col.tokens")}</th>
            <th scope="col">{t("usage.col.cost")}</th>
            <th scope="col">{t("usage.col.errors")}</th>
            <th scope="col">{t("usage.col.estimated")}</th>
            <th scope="col">{t("usage.col.avg")}</th>
            <th scope="col">{t("usage.col.p50")}</th>
            <th scope="col">{t("usage.col.p95")}</th>
          </tr>
        </thead>
        <tbody>
          {used.map((d) => (
            <tr key={d.date}>
              <DayCells d={d} />
              <td class="num">{num(d.estimated)}</td>
              <td class="num nowrap">{ms(d.avg_latency_ms)}</td>
              <td class="num nowrap">{ms(d.p50_latency_ms)}</td>
              <td class="num nowrap">{ms(d.p95_latency_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// What every daily chart of the dashboard shares, on uPlot: the days on the x axis (day-axis.ts decides
// their range and labels), spend and requests scales and axes, and colours read from the stylesheet.

import uPlot from "uplot";
import type { Ui } from "../../hooks/use-ui.js";
import { daySeconds, formatAxisDay } from "../../i18n/format.js";
import { dayRange, daySplits } from "./day-axis.js";

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

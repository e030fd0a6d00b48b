// A key's daily usage as charts: spend as bars and requests as a line, and latency p50/p95. The same numbers
// are in a table below the charts for screen readers and for copying.

import { useCallback } from "preact/hooks";
import uPlot from "uplot";
import type { DailyUsage } from "../../api/types.js";
import {
  baseOptions,
  cssColor,
  ends,
  spendAxes,
  spendScales,
  xAxis,
  xScale,
  xSeries,
} from "../../components/charts/options.js";
import { Plot } from "../../components/charts/plot.js";
import { DayCells } from "../../components/day-cells.js";
import { type Ui, useUi } from "../../hooks/use-ui.js";
import { daySeconds } from "../../i18n/format.js";

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

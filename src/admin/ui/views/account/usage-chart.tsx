// An account's daily spend as stacked bars (by key or by model) with its requests as a line, on uPlot. Each
// stack is drawn from the tallest (every stack below included) to the first, so each shows on top of those
// before it; the legend and the table beside the chart give each stack's own amount, never the running sum.

import { useCallback } from "preact/hooks";
import type uPlot from "uplot";
import uPlotLib from "uplot";
import type { AccountUsage } from "../../api/types.js";
import { baseOptions, cssColor, spendAxes, spendScales, xSeries } from "../../components/charts/options.js";
import { Plot } from "../../components/charts/plot.js";
import { type Ui, useUi } from "../../hooks/use-ui.js";
import { daySeconds } from "../../i18n/format.js";
import { cumulative, type Stack } from "./stacked-usage.js";

const PALETTE: [string, string][] = [
  ["--chart-1", "#1f6feb"],
  ["--chart-2", "#c2410c"],
  ["--chart-3", "#9333ea"],
  ["--chart-4", "#15803d"],
  ["--chart-5", "#b45309"],
  ["--chart-6", "#64748b"],
];

/** What a stack is called: a key's or model's name, or what stands for the others. */
export function stackLabel(ui: Ui, stack: Stack): string {
  switch (stack.kind) {
    case "none":
      return ui.t("usage.noModel");
    case "other":
      return ui.t("usage.otherModels");
    case "rest":
      return ui.t("usage.rest");
    default:
      return stack.name ?? "";
  }
}

function build(ui: Ui, usage: AccountUsage, stacks: Stack[], width: number) {
  const line = cssColor("--fg", "#1b1f24");
  const tops = cumulative(stacks);
  const bars = uPlotLib.paths.bars?.({ size: [0.7, 32] });
  const colors = stacks.map((_, i) => {
    const [name, fallback] = PALETTE[i % PALETTE.length] as [string, string];
    return cssColor(name, fallback);
  });
  // Drawn tallest first: uPlot paints series in order.
  const order = stacks.map((_, i) => stacks.length - 1 - i);
  const options: uPlot.Options = {
    ...baseOptions(width),
    height: 240,
    scales: spendScales(usage.days),
    series: [
      xSeries(ui),
      ...order.map(
        (i): uPlot.Series => ({
          label: stackLabel(ui, stacks[i] as Stack),
          scale: "rub",
          stroke: colors[i] as string,
          fill: colors[i] as string,
          width: 0,
          ...(bars ? { paths: bars } : {}),
          points: { show: false },
          value: (_u, _v, _s, idx) => (idx === null ? "—" : ui.rub(stacks[i]?.costs[idx] ?? 0)),
        }),
      ),
      {
        label: ui.t("chart.requests"),
        scale: "req",
        stroke: line,
        width: 2,
        points: { show: true, size: 5, fill: line },
        value: (_u, v) => (v === null ? "—" : ui.num(v)),
      },
    ],
    axes: spendAxes(ui, usage.days),
  };
  const data: uPlot.AlignedData = [
    usage.days.map((d) => daySeconds(d.date)),
    ...order.map((i) => tops[i] as number[]),
    usage.days.map((d) => d.requests),
  ];
  return { options, data };
}

export function UsageChart({
  usage,
  stacks,
  label,
}: {
  usage: AccountUsage;
  stacks: Stack[];
  label: string;
}) {
  const ui = useUi();
  const make = useCallback((width: number) => build(ui, usage, stacks, width), [ui, usage, stacks]);
  return <Plot build={make} label={label} />;
}

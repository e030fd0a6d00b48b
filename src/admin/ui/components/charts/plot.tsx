// A uPlot chart on the page (canvas; its element styles are set through CSSOM, which the CSP allows) that
// follows its box's width.

import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

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

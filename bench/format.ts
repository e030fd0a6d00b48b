// How the benchmark pages write figures: times, signed differences, large whole numbers, a target's verdict.

export const ms = (n: number) => `${n.toFixed(2)} ms`;
export const signedMs = (n: number) => `${n < 0 ? "−" : "+"}${Math.abs(n).toFixed(2)} ms`;
export const signedPercent = (n: number) => `${n < 0 ? "−" : "+"}${Math.abs(n).toFixed(1)} %`;
/** 18634 → "18 634", as the rest of the docs write large numbers. */
export const whole = (n: number) => Math.round(n).toLocaleString("en-US").replaceAll(",", " ");
export const met = (ok: boolean) => (ok ? "met" : "not met");

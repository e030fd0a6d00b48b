// A day's first cells in a usage table, the key's and the account's alike.

import type { DailyUsage } from "../api/types.js";
import { useUi } from "../hooks/use-ui.js";

/** Under a prompt's token count: how many of them the model server served from its cache, when any were. */
export function CachedTokens({ n }: { n: number }) {
  const { num, t } = useUi();
  if (n <= 0) return null;
  return <div class="muted small">{t("tokens.cached", { n: num(n) })}</div>;
}

/** A day's first cells in a usage table, the key's and the account's alike: date, requests, tokens, cost, errors. */
export function DayCells({
  d,
}: {
  d: Pick<
    DailyUsage,
    "date" | "requests" | "prompt_tokens" | "cached_tokens" | "completion_tokens" | "cost" | "errors"
  >;
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
        <CachedTokens n={d.cached_tokens} />
      </td>
      <td class="num nowrap">{rub(d.cost)}</td>
      <td class="num">{num(d.errors)}</td>
    </>
  );
}

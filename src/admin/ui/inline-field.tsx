// A labelled control of a one-line form (filters, ranges, search): the label names the control by `for`, not by
// wrapping it, so that the control's name is the label's words alone — a wrapping label would add the
// select's chosen option to it ("Status any").

import type { JSX } from "preact";
import { useId } from "preact/hooks";

export function InlineField({ label, children }: { label: string; children: (id: string) => JSX.Element }) {
  const id = useId();
  return (
    <div class="inline-field">
      <label for={id}>{label}</label>
      {children(id)}
    </div>
  );
}

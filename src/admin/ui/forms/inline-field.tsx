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

/** A date of a range or filter (YYYY-MM-DD, as the API takes it). */
export function DateField({
  label,
  value,
  onInput,
}: {
  label: string;
  value: string;
  onInput: (value: string) => void;
}) {
  return (
    <InlineField label={label}>
      {(id) => (
        <input id={id} type="date" value={value} onInput={(event) => onInput(event.currentTarget.value)} />
      )}
    </InlineField>
  );
}

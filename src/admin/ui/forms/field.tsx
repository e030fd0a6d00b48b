// A form's labelled field: the label, the control, its help and the problem with what was typed, all linked
// for screen readers; a ruble amount's input; and when a field's problem is shown.

import type { JSX } from "preact";
import { useId } from "preact/hooks";
import { useUi } from "../hooks/use-ui.js";
import type { MessageKey } from "../i18n/lookup.js";

/**
 * A blur handler that shows a field's problem once the field is left — unless it is left for a button or a
 * link: the problem would move that button between the press and the release, and the click would be lost.
 * (Submitting shows every problem anyway.)
 */
export function onLeft(show: () => void) {
  return (event: FocusEvent) => {
    const next = event.relatedTarget;
    if (!(next instanceof HTMLButtonElement || next instanceof HTMLAnchorElement)) show();
  };
}

export interface FieldControl {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
}

/**
 * A ruble amount: a text input, so that the server's rules (checkAmount) judge exactly what was typed — a
 * number input rewrites or silently empties some entries — with a decimal keypad on phones.
 */
export function RublesInput({
  control,
  value,
  placeholder,
  onValue,
  onBlur,
}: {
  control: FieldControl;
  value: string;
  placeholder: string;
  onValue: (value: string) => void;
  onBlur?: (event: FocusEvent) => void;
}) {
  return (
    <input
      {...control}
      type="text"
      inputMode="decimal"
      autoComplete="off"
      placeholder={placeholder}
      value={value}
      onInput={(event) => onValue(event.currentTarget.value)}
      onBlur={onBlur}
    />
  );
}

/** A form field: its label, the control, a help text and the problem with what was typed, all linked. */
export function Field({
  label,
  help,
  problem,
  children,
}: {
  label: string;
  help?: string;
  problem?: MessageKey | undefined;
  children: (control: FieldControl) => JSX.Element;
}) {
  const { t } = useUi();
  const id = useId();
  const described = [help ? `${id}-help` : "", problem ? `${id}-problem` : ""].filter(Boolean).join(" ");
  return (
    <div class={problem ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      {children({
        id,
        "aria-describedby": described || undefined,
        "aria-invalid": problem ? true : undefined,
      })}
      {help && (
        <p class="help" id={`${id}-help`}>
          {help}
        </p>
      )}
      {problem && (
        <p class="problem" id={`${id}-problem`}>
          {t(problem)}
        </p>
      )}
    </div>
  );
}

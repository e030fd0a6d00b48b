// A secret shown this once (a new key's value, an API token, an invitation's link): the warning, the value
// selected on focus, and a copy button.

import { useId, useRef, useState } from "preact/hooks";
import { useUi } from "../hooks/use-ui.js";

/**
 * A value shown this once: the warning, the value selected on focus, and a copy button; a key's value unless
 * `warning` and `label` say what else it is.
 */
export function SecretValue({ value, warning, label }: { value: string; warning?: string; label?: string }) {
  const { t } = useUi();
  const input = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<"copied" | "failed" | null>(null);
  const id = useId();

  const copyKey = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopy("copied");
    } catch {
      input.current?.focus();
      input.current?.select();
      setCopy("failed");
    }
  };

  return (
    <>
      <p class="note warning" role="alert">
        {warning ?? t("created.warning")}
      </p>
      <label for={id}>{label ?? t("created.value")}</label>
      <div class="copy-row">
        <input
          id={id}
          ref={input}
          class="secret"
          type="text"
          readOnly
          value={value}
          spellcheck={false}
          autoComplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copyKey}>
          {t("created.copy")}
        </button>
      </div>
      <p class="copy-status" role="status">
        {copy === "copied" ? t("created.copied") : copy === "failed" ? t("created.copyFailed") : ""}
      </p>
    </>
  );
}

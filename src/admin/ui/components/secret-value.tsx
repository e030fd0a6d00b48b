// A secret shown this once (a new key's value, a webhook's signing secret): the warning, the value selected
// on focus, and a copy button.

import { useId, useRef, useState } from "preact/hooks";
import { useUi } from "../hooks/use-ui.js";

/** A key value shown this once: the warning, the value selected on focus, and a copy button. */
export function SecretValue({ value }: { value: string }) {
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
        {t("created.warning")}
      </p>
      <label for={id}>{t("created.value")}</label>
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

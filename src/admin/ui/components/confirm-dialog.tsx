// The confirmation before an action that cannot be undone (or must not happen by mistake): a modal dialog.

import type { ComponentChildren } from "preact";
import { useId, useLayoutEffect, useRef } from "preact/hooks";
import { useUi } from "../hooks/use-ui.js";

/**
 * A modal confirmation (the native <dialog>: focus trapped, Escape cancels). Closing gives the focus back to
 * the control that opened it.
 */
export function ConfirmDialog({
  title,
  children,
  confirm,
  busy,
  working,
  danger = true,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  confirm: string;
  busy: boolean;
  /** The confirm button's text while busy; "Revoking…" by default. */
  working?: string;
  /** A red confirm button, for what cannot be undone. */
  danger?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const { t } = useUi();
  const titleId = useId();
  useLayoutEffect(() => {
    const dialog = ref.current;
    // The dialog is closed by being taken out of the page, and Chromium then leaves the focus on the body: a
    // keyboard user would start again from the top. Remembered before showModal moves the focus inside.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      // In the task that takes the dialog away, once the rest of the page is rendered: a layout effect's
      // cleanup runs as the dialog leaves (an effect's would run after the page is painted, the focus on the
      // body until then, and a key pressed meanwhile lost), and the microtask after that render, so that a
      // confirmed action that took its button away (a revoked key has no Revoke) is seen: the view's heading
      // then.
      queueMicrotask(() => {
        const next = opener?.isConnected ? opener : document.querySelector<HTMLElement>("main h1");
        next?.focus();
      });
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      <div class="actions">
        <button type="button" class="secondary" onClick={onCancel} disabled={busy}>
          {t("common.cancel")}
        </button>
        <button type="button" class={danger ? "danger" : undefined} onClick={onConfirm} disabled={busy}>
          {busy ? (working ?? t("revoke.working")) : confirm}
        </button>
      </div>
    </dialog>
  );
}

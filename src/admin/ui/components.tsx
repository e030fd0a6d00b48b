// Small pieces shared by the views: page titles that take the focus, loading and error notes, labelled form
// fields, the confirmation dialog and the audit log table.

import type { ComponentChildren, JSX } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.js";
import { useUi } from "./context.js";
import type { MessageKey } from "./i18n.js";

/** The view's heading: sets the document title and takes the focus, so that screen readers announce it. */
export function PageTitle({ title }: { title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const { t } = useUi();
  useEffect(() => {
    document.title = `${title} · ${t("app.name")}`;
  }, [title, t]);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {title}
    </h1>
  );
}

export function Loading() {
  const { t } = useUi();
  return (
    <p class="muted" role="status">
      {t("common.loading")}
    </p>
  );
}

/** What went wrong, as the gateway said it (its messages are written for people). */
export function errorText(error: unknown, t: ReturnType<typeof useUi>["t"]): string {
  if (error instanceof ApiError) return error.status === 0 ? t("error.network") : error.message;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorNote({ error }: { error: unknown }) {
  const { t } = useUi();
  return (
    <p class="note error" role="alert">
      <strong>{t("common.error")}:</strong> {errorText(error, t)}
    </p>
  );
}

export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p class="note success" role="status">
      {children}
    </p>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** How many times reload() was called: parts of a view that load on their own follow it. */
  round: number;
  reload(): void;
  set(data: T): void;
}

/** The button that loads a view's data again; busy while it loads. */
export function RefreshButton({ loaded }: { loaded: Pick<Loaded<unknown>, "reload" | "loading"> }) {
  const { t } = useUi();
  return (
    <button type="button" class="secondary" onClick={loaded.reload} aria-busy={loaded.loading}>
      {t("common.refresh")}
    </button>
  );
}

/** A view's load that went wrong (shown even over older data), or a loading note while there is no data. */
export function LoadProblem({ loaded }: { loaded: Pick<Loaded<unknown>, "data" | "error"> }) {
  if (loaded.error !== undefined) return <ErrorNote error={loaded.error} />;
  return loaded.data === undefined ? <Loading /> : null;
}

/** Loads data for a view and reloads it on demand; the last good data stays shown while reloading. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let live = true;
    setState((s) => ({ data: s.data, loading: true }));
    loader.current().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    round,
    reload: () => setRound((n) => n + 1),
    set: (data) => setState({ data, loading: false }),
  };
}

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
  useEffect(() => {
    const dialog = ref.current;
    // The dialog is closed by being taken out of the page, and Chromium then leaves the focus on the body: a
    // keyboard user would start again from the top. Remembered before showModal moves the focus inside.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      // A confirmed action can take its button away (a revoked key has no Revoke): the view's heading then.
      const next = opener?.isConnected ? opener : document.querySelector<HTMLElement>("main h1");
      next?.focus();
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

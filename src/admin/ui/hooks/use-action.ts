// A form's or a dialog's request to the admin API: its busy flag, which disables the button so that the
// request cannot be sent twice, and its error, which the form shows next to the button. One hook, so that
// every form behaves the same.

import { useState } from "preact/hooks";

export interface Action {
  busy: boolean;
  /** What the last request threw, or null. */
  error: unknown;
  /** Clears the last error, then runs `request` with busy set and keeps what it throws as the error. */
  run(request: () => Promise<void>): Promise<void>;
  /** Clears the last error without sending anything (a submission the form itself refused). */
  clearError(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return {
    busy,
    error,
    clearError: () => setError(null),
    run: async (request) => {
      setError(null);
      setBusy(true);
      try {
        await request();
      } catch (failure) {
        setError(failure);
      } finally {
        setBusy(false);
      }
    },
  };
}

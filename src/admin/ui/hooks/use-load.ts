// A view's data from the admin API: loaded when the view opens and again on demand, the last good data kept on
// the page while it reloads, and what went wrong.

import { useEffect, useRef, useState } from "preact/hooks";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** How many times reload() was called: parts of a view that load on their own follow it. */
  round: number;
  reload(): void;
  set(data: T): void;
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

/** Loading state for one GET: the value, the error, and `reload()`. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { getJson } from "./api.js";

/** What `useFetch` gives: the last value loaded, the last error, and a way to load again. */
export interface Fetched<T> {
  value?: T;
  error?: string;
  loading: boolean;
  reload: () => Promise<void>;
}

/** GETs `path` (again whenever `path` changes); `path` undefined loads nothing. */
export function useFetch<T>(path: string | undefined): Fetched<T> {
  const [state, setState] = useState<{ value?: T; error?: string; loading: boolean }>({ loading: !!path });
  const reload = useCallback(async () => {
    if (!path) return;
    setState((s) => ({ ...s, loading: true }));
    try {
      const value = await getJson<T>(path);
      setState({ value, loading: false });
    } catch (error) {
      setState((s) => ({ ...s, error: (error as Error).message, loading: false }));
    }
  }, [path]);
  useEffect(() => {
    setState({ loading: !!path });
    void reload();
  }, [reload]);
  return { ...state, reload };
}

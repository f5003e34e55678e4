/** Loads something from the API for a page: data, error, loading, and `reload`. */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { ToolRuntimeClient } from "../../client/index.ts";
import { useApp } from "./app-context.ts";

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload(): void;
}

export function useLoad<T>(load: (client: ToolRuntimeClient) => Promise<T>, deps: unknown[]): Loaded<T> {
  const { client, problem } = useApp();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load(client)
      .then(
        (value) => current && (setData(value), setError(null)),
        (err) => current && !problem(err) && setError(err),
      )
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
    // `load` is a fresh closure each render; `deps` says when it means something else.
  }, [client, round, ...deps]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload };
}

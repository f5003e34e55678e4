/**
 * What the user typed, kept in sessionStorage as they type, so that a reload, an expired
 * key or a failed call never loses it. A component's key must not change while it is
 * mounted: give the component a Preact `key` instead (one per tool).
 */
import { useEffect, useState } from "preact/hooks";

const PREFIX = "trt.console.draft.";

export function useDraft<T>(key: string, initial: T | (() => T)): [T, (value: T) => void] {
  const [value, setValue] = useState<T>(() => {
    const saved = sessionStorage.getItem(PREFIX + key);
    if (saved !== null) {
      try {
        return JSON.parse(saved) as T;
      } catch {
        /* a draft from an older console: start afresh */
      }
    }
    return typeof initial === "function" ? (initial as () => T)() : initial;
  });
  useEffect(() => {
    sessionStorage.setItem(PREFIX + key, JSON.stringify(value));
  }, [key, value]);
  return [value, setValue];
}

// The page's route, read from the location's hash and followed as it changes.

import { useEffect, useMemo, useState } from "preact/hooks";
import { parseRoute, type Route } from "../route.js";

export function useHashRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return useMemo(() => parseRoute(hash), [hash]);
}

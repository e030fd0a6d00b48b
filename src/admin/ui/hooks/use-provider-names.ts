// The identity providers' names by id (GET /auth/providers), for the sentences that say how a person signed
// in: read once per page load and shared by every view that names them.

import { useEffect, useState } from "preact/hooks";
import { api } from "../api/endpoints.js";

let names: Promise<ReadonlyMap<string, string>> | undefined;

export function useProviderNames(): ReadonlyMap<string, string> {
  const [known, setKnown] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    names ??= api.providers().then(
      (ways) => new Map(ways.providers.map((p) => [p.id, p.name])),
      () => {
        names = undefined;
        return new Map();
      },
    );
    let live = true;
    names.then((found) => live && setKnown(found));
    return () => {
      live = false;
    };
  }, []);
  return known;
}

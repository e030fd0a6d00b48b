// Who is signed in, for the views that need it, and how to sign out.

import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "../api/types.js";

export interface Session {
  me: Me;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in view");
  return session;
}

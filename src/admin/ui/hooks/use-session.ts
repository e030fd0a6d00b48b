// Who is signed in, for the views that need it, what they may do, and how to sign out.

import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Action } from "../api/abilities.js";
import type { Me } from "../api/types.js";

export interface Session {
  me: Me;
  /** Whether the permission table lets the credential take `action` (in `accountId` for an account's). */
  can(action: Action, accountId?: string): boolean;
  signOut(): void;
  /** Ends every session of the person, this one included (a person signed in with a session only). */
  signOutEverywhere(): Promise<void>;
  /** Reads GET /me again: after a change to the person's own memberships or roles. */
  refresh(): Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in view");
  return session;
}

/** The session on the pages anyone may open (sign-in, one-time links), or null when no one is signed in. */
export function useOptionalSession(): Session | null {
  return useContext(SessionContext);
}

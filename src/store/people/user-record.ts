// A person's record as a typed value: the user hash (under the person's own tag) read into a UserRecord, and
// grants as the scripts write them (source -> role, as JSON text) read back, anything malformed as no grant.
// The store (user-store.ts) reads and writes them; what the roles mean is src/identity's business.

export type UserStatus = "active" | "disabled";

/** Grants as stored: source ("direct", "oidc:<provider>") -> role name. */
export type StoredGrants = Readonly<Record<string, string>>;

/** Grants from their JSON; anything malformed reads as no grant at all. */
export function parseGrants(json: string | null | undefined): StoredGrants {
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).filter(([, role]) => typeof role === "string"));
}

export interface UserRecord {
  id: string;
  name: string;
  /** Case-folded; unique among users. */
  email: string;
  status: UserStatus;
  operatorGrants: StoredGrants;
  /** PHC string of the local password (argon2id), or null for a person who signs in only with a provider. */
  passwordHash: string | null;
  /** The providers the person has signed in with. */
  providers: string[];
  createdAt: number;
  lastSignInAt: number | null;
}

/** Fields of the user record that updateUser changes. */
export interface UserChanges {
  name?: string;
  status?: UserStatus;
  passwordHash?: string | null;
  providers?: string[];
  lastSignInAt?: number;
}

export function parseUser(hash: Record<string, string>): UserRecord | null {
  if (hash.id === undefined || hash.email === undefined) return null;
  return {
    id: hash.id,
    name: hash.name ?? hash.email,
    email: hash.email,
    status: hash.status === "disabled" ? "disabled" : "active",
    operatorGrants: parseGrants(hash.operator),
    passwordHash: hash.password || null,
    providers: hash.providers ? hash.providers.split(",") : [],
    createdAt: Number(hash.created_at ?? 0),
    lastSignInAt: hash.last_sign_in_at ? Number(hash.last_sign_in_at) : null,
  };
}

// Local passwords: argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), stored as a PHC string that
// carries its own parameters, so that they can be raised later without breaking stored hashes. A new password
// must be at least signIn.local.minPasswordLength characters and not among the most common passwords
// (zxcvbn-ts' list of about 50,000, loaded at the first check, not at start-up).

import { hash, verify } from "@node-rs/argon2";
import { GatewayError } from "../core/errors.js";

/** Algorithm is a const enum in @node-rs/argon2's types, which isolated modules cannot read: 2 is Argon2id. */
const ARGON2ID = 2;
const OWASP = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Longest password accepted: argon2 takes any length, but a megabyte "password" is only a way to load us. */
export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OWASP);
}

/** A hash of nothing anyone knows, verified against when there is no user, so that both take as long. */
let dummy: Promise<string> | undefined;

/**
 * Whether the password matches the stored hash. With no hash (an unknown e-mail, a person without a local
 * password) a dummy hash is verified all the same, so that the answer takes as long as for a wrong password.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (stored === null) {
    dummy ??= hashPassword("no user has this password: it only makes the answer take as long");
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let common: Promise<ReadonlySet<string>> | undefined;

function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import("@zxcvbn-ts/language-common").then(
    ({ dictionary }) => new Set(dictionary["passwords-common"].map((p) => p.toLowerCase())),
  );
  return common;
}

/** Refuses a new password that is too short, too long or too common, with 400 weak_password saying which. */
export async function checkNewPassword(password: unknown, minLength: number): Promise<string> {
  if (typeof password !== "string") throw new GatewayError("invalid_request", "password must be a string");
  const length = [...password].length;
  if (length < minLength)
    throw new GatewayError("weak_password", `The password must be at least ${minLength} characters long.`);
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new GatewayError(
      "weak_password",
      `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`,
    );
  if ((await commonPasswords()).has(password.toLowerCase()))
    throw new GatewayError(
      "weak_password",
      "This password is among the most common ones, which are tried first by anyone guessing; choose another.",
    );
  return password;
}

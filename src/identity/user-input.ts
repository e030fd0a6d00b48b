// What a person's identity is given as, checked: an e-mail as users are keyed by it, a user id, a role in an
// account or over every account. Each refusal names the field and what it got.

import { GatewayError } from "../core/errors.js";
import {
  ACCOUNT_ROLES,
  type AccountRole,
  isAccountRole,
  isOperatorRole,
  OPERATOR_ROLES,
  type OperatorRole,
} from "../core/roles.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const USER_ID = /^usr_[0-9a-z]{20}$/;

/** An e-mail as users are keyed by it: trimmed and case-folded, checked for shape. */
export function validateEmail(value: unknown): string {
  const email = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (!EMAIL.test(email) || email.length > 254)
    throw new GatewayError(
      "invalid_request",
      `email must be an e-mail address; got ${JSON.stringify(value)}`,
    );
  return email;
}

export function validateUserId(value: unknown): string {
  if (typeof value !== "string" || !USER_ID.test(value))
    throw new GatewayError(
      "invalid_request",
      `user id must be usr_ and 20 letters or digits; got ${JSON.stringify(value)}`,
    );
  return value;
}

export function validateAccountRole(value: unknown): AccountRole {
  if (!isAccountRole(value))
    throw new GatewayError(
      "invalid_request",
      `role must be one of ${ACCOUNT_ROLES.join(", ")}; got ${JSON.stringify(value)}`,
    );
  return value;
}

export function validateOperatorRole(value: unknown): OperatorRole {
  if (!isOperatorRole(value))
    throw new GatewayError(
      "invalid_request",
      `operator role must be one of ${OPERATOR_ROLES.join(", ")}; got ${JSON.stringify(value)}`,
    );
  return value;
}

// What went wrong while signing in, as a sentence a person can act on: the provider flow's failures (which
// come back in the address, #/sign-in?error=<code>&provider=<id>), the password form's refusals and the
// one-time links'. The gateway's own messages are for API users; these say what to do next. Pure, for the
// unit tests.

import { ApiError } from "../../api/client.js";
import { type Lang, type MessageKey, translate, type Values } from "../../i18n/lookup.js";

export interface Problem {
  key: MessageKey;
  values: Values;
}

/** A failure of signing in with a provider, by the error code the gateway put in the address. */
export function providerProblem(code: string, provider: string): Problem {
  switch (code) {
    case "user_disabled":
      return { key: "signIn.problem.disabled", values: {} };
    case "identity_provider_unavailable":
      return { key: "signIn.problem.unavailable", values: { provider } };
    case "session_expired":
      return { key: "signIn.problem.stale", values: { provider } };
    case "csrf_refused":
      return { key: "signIn.problem.otherBrowser", values: { provider } };
    case "sign_in_failed":
      return { key: "signIn.problem.refused", values: { provider } };
    case "provider_link_required":
      return { key: "signIn.problem.linkRequired", values: { provider } };
    case "forbidden":
      return { key: "signIn.problem.linkTaken", values: { provider } };
    default:
      return { key: "signIn.problem.other", values: { provider, code } };
  }
}

/** "5 minutes", "45 seconds": how long to wait, rounded up to whole minutes from a minute on. */
export function waitWords(lang: Lang, seconds: number): string {
  if (seconds < 60) return translate(lang, "signIn.wait.seconds", { n: Math.max(1, seconds) });
  return translate(lang, "signIn.wait.minutes", { n: Math.ceil(seconds / 60) });
}

/**
 * A refusal of the password form as a sentence in `lang`, or null for a failure that is not the person's to
 * fix (the network, the gateway), which is shown as an error instead.
 */
export function passwordProblem(error: unknown, lang: Lang): string | null {
  if (!(error instanceof ApiError)) return null;
  switch (error.code) {
    case "sign_in_failed":
      return translate(lang, "signIn.problem.wrongPassword");
    case "too_many_attempts":
      return error.retryAfter === null
        ? translate(lang, "signIn.problem.tooMany")
        : translate(lang, "signIn.problem.tooManyWait", { wait: waitWords(lang, error.retryAfter) });
    case "user_disabled":
      return translate(lang, "signIn.problem.disabled");
    default:
      return null;
  }
}

/** Why the server refused a new password (weak_password): judged by what was sent, as the server does. */
export function weakPasswordReason(password: string, minLength: number): MessageKey {
  const length = [...password].length;
  if (length < minLength) return "password.tooShort";
  if (password.length > 1024) return "password.tooLong";
  return "password.tooCommon";
}

/** A one-time link's refusal as a sentence, or null for anything else. */
export function linkProblem(error: unknown): MessageKey | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === "invitation_invalid") return "invite.invalid";
  if (error.code === "password_link_invalid") return "setPassword.invalid";
  if (error.status === 404 && error.code === "not_found") return "setPassword.off";
  return null;
}

/** A new password and its repetition, as typed. */
export interface NewPassword {
  password: string;
  repeat: string;
}

/**
 * What is wrong with a new password before it is sent: the server's length rule (its most common passwords
 * only it can judge), and a repetition that differs — the one typing mistake a hidden field hides.
 */
export function newPasswordProblems(
  value: NewPassword,
  minLength: number,
): { password?: MessageKey; repeat?: MessageKey } {
  const problems: { password?: MessageKey; repeat?: MessageKey } = {};
  if ([...value.password].length < minLength) problems.password = "password.tooShort";
  else if (value.password.length > 1024) problems.password = "password.tooLong";
  if (value.repeat !== value.password) problems.repeat = "password.mismatch";
  return problems;
}

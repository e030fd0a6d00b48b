// What is wrong with a setting, in the words of the configuration's documentation: "required", "must be a
// whole number", "must be one of info, warn, …" rather than zod's "Invalid input: expected int, received
// number". Messages the schema words itself (a time zone, a CIDR, an amount of rubles) are kept as they are;
// this only words the checks zod makes on its own. Values are never repeated: a setting may be a secret.

import type { z } from "zod";

const TYPE_NAMES: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  string: "text",
  array: "a list",
  object: "a mapping of settings",
};

/** zod's per-parse error map: our message for a check zod made, or undefined to keep the schema's own. */
export function settingMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "required";
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "invalid_union":
      // Amounts are a number or a decimal text; the schema words what is wrong with either.
      return issue.input === undefined ? "required" : "must be an amount such as 100 or 12.5";
    case "too_small":
      return tooSmall(issue);
    case "too_big":
      return tooBig(issue);
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return issue.format === "url" ? "must be a URL" : `must be ${issue.format}`;
    default:
      return undefined;
  }
}

function tooSmall(issue: z.core.$ZodRawIssue<z.core.$ZodIssueTooSmall>): string {
  const minimum = Number(issue.minimum);
  if (issue.origin === "string") {
    return minimum === 1 ? "must not be empty" : `must be at least ${minimum} characters long`;
  }
  if (issue.origin === "array") return `must list at least ${minimum}`;
  return issue.inclusive === false ? `must be more than ${minimum}` : `must be at least ${minimum}`;
}

function tooBig(issue: z.core.$ZodRawIssue<z.core.$ZodIssueTooBig>): string {
  const maximum = Number(issue.maximum);
  if (issue.origin === "string") return `must be at most ${maximum} characters long`;
  if (issue.origin === "array") return `must list at most ${maximum}`;
  return issue.inclusive === false ? `must be less than ${maximum}` : `must be at most ${maximum}`;
}

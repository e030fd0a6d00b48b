// The error table lives in src/core/errors.ts; docs/endpoints-and-errors.md documents it. This keeps the two the
// same, as fastify's tests keep its documented error codes in step with lib/errors.js.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERRORS, errorBody, GatewayError } from "../../src/core/errors.js";

const PAGE = new URL("../../docs/endpoints-and-errors.md", import.meta.url);

function documentedTable(): { status: number; code: string; type: string }[] {
  const page = readFileSync(PAGE, "utf8");
  const start = page.indexOf("\n## Errors\n");
  expect(start, "docs/endpoints-and-errors.md has an Errors section").toBeGreaterThan(-1);
  const end = page.indexOf("\n## ", start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|\s*`([a-z_]+)`\s*\|/gm)].map(
    ([, status, code, type]) => ({
      status: Number(status),
      code: code as string,
      type: type as string,
    }),
  );
}

describe("the error table", () => {
  it("is documented in docs/endpoints-and-errors.md exactly as it is in src/core/errors.ts", () => {
    const documented = documentedTable().sort((a, b) => a.code.localeCompare(b.code));
    const actual = Object.entries(ERRORS)
      .map(([code, { status, type }]) => ({ status, code, type }))
      .sort((a, b) => a.code.localeCompare(b.code));
    expect(documented).toEqual(actual);
  });

  it("gives every error a message a person can act on, and the OpenAI error shape", () => {
    for (const code of Object.keys(ERRORS) as (keyof typeof ERRORS)[]) {
      const body = JSON.parse(errorBody(new GatewayError(code)));
      expect(body).toEqual({
        error: { message: expect.stringMatching(/^[A-Z].{10,}\.$/), type: ERRORS[code].type, code },
      });
    }
  });
});

// The error table lives in src/errors.ts; the README documents it. This keeps the two the same, as
// fastify's tests keep its documented error codes in step with lib/errors.js.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERRORS, errorBody, GatewayError } from "../src/errors.js";

function readmeTable(): { status: number; code: string; type: string }[] {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(
    readme.indexOf("\n## Errors"),
    readme.indexOf("\n## ", readme.indexOf("\n## Errors") + 1),
  );
  return [...section.matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|\s*`([a-z_]+)`\s*\|/gm)].map(
    ([, status, code, type]) => ({
      status: Number(status),
      code: code as string,
      type: type as string,
    }),
  );
}

describe("the error table", () => {
  it("is documented in the README exactly as it is in src/errors.ts", () => {
    const documented = readmeTable().sort((a, b) => a.code.localeCompare(b.code));
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

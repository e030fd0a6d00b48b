// The admin API's OpenAPI document, generated from the route table and its schemas: every route with its
// parameters, body and responses, every reference resolvable, and the copy kept in the repository the same
// as what is generated (the end-to-end test checks that it is also what is served).

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/admin/openapi.js";
import { ROUTES } from "../../src/admin/routes.js";

const document = openApiDocument() as any;

function operation(method: string, path: string): any {
  return document.paths[path]?.[method.toLowerCase()];
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref" && typeof child === "string") found.push(child);
      else refsIn(child, found);
    }
  }
  return found;
}

describe("openApiDocument", () => {
  it("is the one kept in the repository (npm run openapi writes it)", () => {
    const committed = JSON.parse(
      readFileSync(new URL("../../src/admin/openapi.json", import.meta.url), "utf8"),
    );
    expect(committed, "src/admin/openapi.json is stale: run npm run openapi").toEqual(document);
  });

  it("describes every route once, under a unique operation id, with its action and who may sign for it", () => {
    const ids = ROUTES.map((route) => route.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of ROUTES) {
      const op = operation(route.method, route.path);
      expect(op?.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
      expect(op.summary).toBe(route.summary);
      expect(op["x-action"]).toBe(route.action);
      expect(op.security).toEqual(
        route.action === "public"
          ? []
          : route.action === "me.manage"
            ? [{ session: [] }]
            : [{ bearer: [] }, { session: [] }],
      );
    }
    const described = Object.values(document.paths).flatMap((methods: any) => Object.keys(methods));
    expect(described).toHaveLength(ROUTES.length + 1);
    expect(operation("GET", "/admin/v1/openapi.json").security).toEqual([]);
  });

  it("declares each path template's parameters as required, and a route's query parameters as optional", () => {
    for (const route of ROUTES) {
      const op = operation(route.method, route.path);
      const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      const params = op.parameters as { name: string; in: string; required: boolean; schema: unknown }[];
      expect(params.filter((p) => p.in === "path").map((p) => p.name)).toEqual(inPath);
      expect(params.filter((p) => p.in === "path").every((p) => p.required)).toBe(true);
      const query = params.filter((p) => p.in === "query");
      expect(query.every((p) => p.required === false)).toBe(true);
      expect(query.map((p) => p.name).sort()).toEqual(
        route.query ? Object.keys((route.query as any).shape).sort() : [],
      );
    }
    const audit = operation("GET", "/admin/v1/audit").parameters;
    expect(audit).toContainEqual({
      name: "limit",
      in: "query",
      required: false,
      description: "How many, newest first (default 100, at most 1000)",
      schema: { type: "string", pattern: "^[1-9]\\d*$" },
    });
  });

  it("gives a body only to the routes that take one, and every route its status and the error responses", () => {
    for (const route of ROUTES) {
      const op = operation(route.method, route.path);
      if (route.body)
        expect(op.requestBody).toMatchObject({ required: true, content: { "application/json": {} } });
      else expect(op.requestBody).toBeUndefined();
      expect(Object.keys(op.responses).sort()).toEqual(
        [String(route.status), "400", "401", "403", "404", "503"].sort(),
      );
      expect(op.responses["401"].content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/Error",
      });
    }
    expect(operation("POST", "/admin/v1/accounts").requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/CreateAccount",
    });
  });

  it("shows an example of every request body, one its route takes as it is", () => {
    const withBody = ROUTES.filter((route) => route.body);
    expect(withBody.length).toBeGreaterThan(10);
    for (const route of withBody) {
      const name = `${route.method} ${route.path}`;
      const example = operation(route.method, route.path).requestBody.content["application/json"].example;
      expect(example, `${name} has no request example`).toBeTypeOf("object");
      expect(Object.keys(example).length, `${name}'s example is empty`).toBeGreaterThan(0);
      const parsed = route.body?.safeParse(example);
      expect(parsed?.error, `${name}'s example is not a body it takes`).toBeUndefined();
    }
  });

  it("refers only to components it defines, and leaves no JSON Schema $defs or $schema behind", () => {
    const components = Object.keys(document.components.schemas);
    expect(components).toEqual([...components].sort((a, b) => a.localeCompare(b)));
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(ROUTES.length);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(components).toContain(ref.slice("#/components/schemas/".length));
    }
    const text = JSON.stringify(document);
    expect(text).not.toContain("$defs");
    expect(text).not.toContain('"$schema"');
    expect(text).not.toContain('"$id"');
  });
});

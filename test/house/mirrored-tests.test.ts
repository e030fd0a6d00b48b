// Every file of src/ with logic has its mirrored test, test/<same path>.test.ts (docs/development.md#tests).
// A file without logic needs none: one whose statements are all imports, re-exports, types and constant data
// is recognised as such here. The others without a mirror are listed below, each with its reason: covered
// elsewhere (the covering test must exist, and name the file when the entry is one file). No file is owed a
// test any longer: a new file comes with its own.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Files (or folders, ending in /) with logic but no mirrored test, and why: covered by the tests named. */
const COVERED_ELSEWHERE: Record<string, { by: string[]; why: string }> = {
  "src/config/": {
    by: ["test/config/schema.test.ts", "test/config/load.test.ts"],
    why: "the sections (*-settings.ts, fields.ts) are tested through the one schema they make up",
  },
  "src/admin/ui/": {
    by: [
      "test/e2e/dashboard.test.ts",
      "test/e2e/dashboard-people.test.ts",
      "test/e2e/dashboard-usage.test.ts",
    ],
    why:
      "the dashboard runs in the browser: its pages, their parts, forms and hooks are rendered and driven in " +
      "Chromium by the test/e2e/dashboard-*.test.ts scenarios (its pure modules have mirrors in test/admin/ui/)",
  },
  "src/observability/otel/span-export-worker.ts": {
    by: ["test/observability/otel/worker-span-exporter.test.ts"],
    why: "the worker thread of the span exporter, which runs only as its worker: its tests export through it",
  },
  "src/store/audit/audit-schema.ts": {
    by: ["test/store/audit/audit-store.test.ts"],
    why: "the audit entry's schema, which parses every entry the audit store's tests write",
  },
  "src/store/usage/request-log-schema.ts": {
    by: ["test/store/usage/request-log-store.test.ts"],
    why: "the recent-requests entry's schema, which parses every entry the request-log store's tests derive",
  },
  "src/core/budget-window-schema.ts": {
    by: ["test/core/budget-window-view.test.ts"],
    why: "a budget window's schema, which the view's test parses what budgetWindowView writes with",
  },
  "src/services/usage-schema.ts": {
    by: ["test/services/views.test.ts", "test/services/account-usage.test.ts"],
    why: "the daily usage figures' schema, which the views' and the usage report's tests parse their output with",
  },
  "src/gateway/": {
    by: ["test/gateway.test.ts", "test/gateway-modules.test.ts"],
    why:
      "the gateway's assembly (request path, money side, admin side), built whole by startGateway, which " +
      "these tests and every e2e scenario start",
  },
  "src/cli.ts": { by: ["test/e2e/cli.test.ts"], why: "the program, run as a process by the CLI's scenarios" },
  "src/admin/alert-schemas.ts": {
    by: ["test/admin/alert-routes.test.ts", "test/admin/openapi.test.ts"],
    why:
      "the alert routes' bodies and answers, zod schemas without logic of their own: the routes' test sends " +
      "them valid and invalid over HTTP, the OpenAPI test keeps the document made from them",
  },
  "src/admin/usage-schemas.ts": {
    by: ["test/admin/usage-routes.test.ts", "test/admin/openapi.test.ts"],
    why:
      "the usage routes' queries and answers, zod schemas (a day, a whole number) without logic of their own: " +
      "the routes' test sends good and bad queries over HTTP, the OpenAPI test keeps the document made from them",
  },
  "src/admin/scim-schemas.ts": {
    by: ["test/admin/scim-token-routes.test.ts"],
    why: "the SCIM token routes' shapes and a token's view, which the routes' test checks over HTTP and on its own",
  },
  "src/admin/people-schemas.ts": {
    by: [
      "test/admin/people-views.test.ts",
      "test/admin/member-routes.test.ts",
      "test/admin/user-routes.test.ts",
      "test/admin/openapi.test.ts",
    ],
    why:
      "the people routes' bodies and answers, zod schemas without logic of their own: the views' test builds " +
      "their shapes, the member and user routes' tests send them over HTTP, the OpenAPI test keeps the document",
  },
  "src/admin/link-schemas.ts": {
    by: ["test/admin/user-routes.test.ts", "test/admin/openapi.test.ts"],
    why: "the unlock and provider-link shapes, zod schemas only, sent and answered by the user routes' test",
  },
  "src/admin/sign-in-session.ts": {
    by: ["test/admin/auth-routes.test.ts"],
    why:
      "starting and ending a person's session, which needs a real sign-in: the sign-in routes' test checks the " +
      "new session id each time, the planted one ended, the cookie set and forgotten",
  },
  "src/observability/telemetry.ts": {
    by: ["test/observability/telemetry-start.test.ts", "test/observability/telemetry-off.test.ts"],
    why:
      "the telemetry interfaces and NO_TELEMETRY, whose methods do nothing: the start's test checks it is what " +
      "is handed out when no OTEL_* variable configures an export, the telemetry-off test that the gateway " +
      "then loads no module of OpenTelemetry",
  },
  "src/cli/management-commands.ts": {
    by: ["test/cli/program.test.ts"],
    why: "the management commands' lazy registration, checked on the built CLI (serve must not load them)",
  },
};

/** The project's files under `dir`, relative to the root. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Constant data: literals, and arrays and objects of them (`as const` and `satisfies` allowed). */
function isData(node: ts.Expression): boolean {
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node))
    return isData(node.expression);
  if (ts.isStringLiteral(node) || ts.isNumericLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return true;
  if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) return true;
  if (node.kind === ts.SyntaxKind.NullKeyword) return true;
  if (ts.isPrefixUnaryExpression(node)) return ts.isNumericLiteral(node.operand);
  if (ts.isArrayLiteralExpression(node)) return node.elements.every(isData);
  if (ts.isObjectLiteralExpression(node))
    return node.properties.every((p) => ts.isPropertyAssignment(p) && isData(p.initializer));
  return false;
}

/** Whether a file does something when run: a statement beyond imports, re-exports, types and constant data. */
function hasLogic(path: string): boolean {
  const source = ts.createSourceFile(path, readFileSync(join(ROOT, path), "utf8"), ts.ScriptTarget.Latest);
  return source.statements.some((statement) => {
    if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) return false;
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) return false;
    if (ts.isVariableStatement(statement))
      return !statement.declarationList.declarations.every((d) => d.initializer && isData(d.initializer));
    return true;
  });
}

const mirrorOf = (path: string) => path.replace(/^src\//, "test/").replace(/\.tsx?$/, ".test.ts");
const listed = (entries: Iterable<string>, path: string) =>
  [...entries].some((entry) => (entry.endsWith("/") ? path.startsWith(entry) : path === entry));

const sources = filesUnder("src").filter((path) => /\.tsx?$/.test(path) && !path.endsWith(".d.ts"));
const withLogic = sources.filter(hasLogic);
const unmirrored = withLogic.filter((path) => !existsSync(join(ROOT, mirrorOf(path))));

describe("mirrored tests", () => {
  it("exist for every file of src/ with logic, but those listed with their reason", () => {
    const unexplained = unmirrored.filter((path) => !listed(Object.keys(COVERED_ELSEWHERE), path));
    expect(unexplained).toEqual([]);
  });

  it("are replaced only by tests that exist, and that name the file they cover", () => {
    for (const [entry, { by }] of Object.entries(COVERED_ELSEWHERE)) {
      expect(
        sources.filter((path) => listed([entry], path)).length,
        `${entry} is no file of src/`,
      ).toBeGreaterThan(0);
      for (const test of by) expect(existsSync(join(ROOT, test)), `${test}, covering ${entry}`).toBe(true);
      if (entry.endsWith("/")) continue;
      const name = relative("src", entry).replace(/\.tsx?$/, "");
      const named = by.some((test) => readFileSync(join(ROOT, test), "utf8").includes(name));
      expect(named, `none of ${by.join(", ")} names ${entry}`).toBe(true);
    }
  });

  it("tell constant data and types from logic", () => {
    expect(hasLogic("src/core/key-ref.ts")).toBe(false); // types only
    expect(hasLogic("src/core/money.ts")).toBe(true);
    expect(withLogic.length).toBeGreaterThan(sources.length / 2);
  });
});

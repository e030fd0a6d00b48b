// The layers of src/ and the one direction imports may take between them, checked by dependency-cruiser in
// `npm run lint` (so in CI). docs/development.md#layers draws them and says why each folder sits where it does.
//
// Each row is a layer, lowest first; a folder (or a file directly in src/) may import only from the layers
// below its own — never from a folder beside it in its layer, never from above. Type-only imports count: a
// type that must be shared belongs in the lowest layer that uses it (core/ for what every layer shares).
// A new top-level folder goes into the row where its imports put it; until it is in a row, lint refuses it.

/** Lowest first. */
const LAYERS = [
  ["core"], // shared values and the error table; imports nothing of the project
  ["config", "http"], // settings; what every listener shares (answers, bodies, paths)
  ["store"], // Redis: connection, key names, scripts, the stores
  ["auth"], // API keys and authenticating them
  ["billing", "alerts"], // money on the request path | alert events, webhooks, their delivery
  ["observability"], // logger, metrics, the observer
  ["proxy", "services", "identity"], // forwarding a request | account, key, usage and alert management | people, sign-in, roles
  ["server", "admin"], // the public listener and its local routes | the admin API and the dashboard
  ["gateway"], // the composition root's parts: the request path's, the money side's, the admin side's assembly
  ["gateway.ts"], // the composition root: builds the gateway from its configuration, decides nothing
  ["run-gateway.ts"], // `serve`: runs the gateway until a signal, then drains it
  ["cli", "demo"], // the commands; the demo (a gateway, a model server and a Redis of its own)
  ["cli.ts"], // the program: wires the commands, decides nothing
];

/** A room's path pattern: a folder, or a file directly in src/. */
const pattern = (room) => (room.endsWith(".ts") ? `^src/${room.replace(/\./g, "\\.")}$` : `^src/${room}/`);

const layerRules = LAYERS.flatMap((layer, level) => {
  const below = LAYERS.slice(0, level).flat();
  return layer.map((room) => ({
    name: `layers: ${room}`,
    severity: "error",
    comment:
      `src/${room} may import only ${below.length === 0 ? "nothing of the project" : below.join(", ")} ` +
      "(the layers below its own): see .dependency-cruiser.cjs and docs/development.md#layers.",
    from: { path: pattern(room), pathNot: room === "admin" ? "^src/admin/ui/" : undefined },
    to: { path: "^src/", pathNot: [pattern(room), ...below.map(pattern)] },
  }));
});

/**
 * The rooms inside src/store/, lowest first, with the same rule as the layers: a room may import only the rows
 * below its own (docs/development.md#inside-store). src/store/lua/ holds the scripts, not modules.
 */
const STORE_LAYERS = [
  ["connection"], // the Redis connection: settings, batching, timings, start-up and failover checks, WAIT
  ["redis-keys.ts", "scripts.ts", "records.ts"], // every key name | the scripts' loader | the hashes as typed values
  ["audit"], // the audit entry and the logs the scripts append it to
  ["accounts"], // accounts, their alert settings and their event streams
  ["keys", "sharing", "usage", "people", "billing"], // API keys | fair sharing | counters and recent requests | people | money scripts
  ["stores.ts"], // every store over one connection
];

/** A room of src/store/ as a path pattern: a folder, or a file directly in src/store/. */
const storePattern = (room) =>
  room.endsWith(".ts") ? `^src/store/${room.replace(/\./g, "\\.")}$` : `^src/store/${room}/`;

const storeRules = STORE_LAYERS.flatMap((layer, level) => {
  const below = STORE_LAYERS.slice(0, level).flat();
  return layer.map((room) => ({
    name: `store: ${room}`,
    severity: "error",
    comment:
      `src/store/${room} may import only ${below.length === 0 ? "nothing else of src/store/" : below.join(", ")} ` +
      "of src/store/ (the rooms below its own): see .dependency-cruiser.cjs and docs/development.md#inside-store.",
    from: { path: storePattern(room) },
    to: { path: "^src/store/", pathNot: [storePattern(room), ...below.map(storePattern)] },
  }));
});

/** What the dashboard (src/admin/ui) may run: core/ and the services' pure modules it shares. */
const DASHBOARD_RUNS = ["^src/core/", "^src/services/lifetime\\.ts$", "^src/services/key-fields\\.ts$"];

/** The schema files: those that define wire shapes as zod schemas (key-schema.ts, usage-schemas.ts, schemas.ts). */
const SCHEMA_FILES = ["-schemas?\\.ts$", "^src/admin/schemas\\.ts$"];

/**
 * The parts of proxy/ (the request path), lowest first: reading the request; metering the answer; fair sharing
 * of the model server; relaying the exchange; the stages. A part may import only the parts below its own; the
 * files directly in proxy/ (the runner, the ending, the tracker) sit on top of them all.
 */
const PROXY_PARTS = ["request", "meters", "sharing", "relay", "stages"];

const proxyPartRules = PROXY_PARTS.map((part, level) => {
  const below = PROXY_PARTS.slice(0, level);
  return {
    name: `proxy parts: ${part}`,
    severity: "error",
    comment:
      `src/proxy/${part}/ may import only ${below.length === 0 ? "nothing else of proxy/" : below.map((b) => `proxy/${b}/`).join(", ")} ` +
      "(the parts below its own): see PROXY_PARTS in .dependency-cruiser.cjs and docs/development.md#layers.",
    from: { path: `^src/proxy/${part}/` },
    to: { path: "^src/proxy/", pathNot: [part, ...below].map((room) => `^src/proxy/${room}/`) },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    ...storeRules,
    ...proxyPartRules,
    {
      name: "store: room without a row",
      severity: "error",
      comment:
        "Every folder and file directly in src/store/ belongs to a row of STORE_LAYERS in .dependency-cruiser.cjs " +
        "(and docs/development.md#inside-store).",
      from: { path: "^src/store/", pathNot: STORE_LAYERS.flat().map(storePattern) },
      to: {},
    },
    {
      name: "no-circular",
      severity: "error",
      comment:
        "Files may not import each other in a circle, type-only imports and dynamic import() included: a circle " +
        "has no order in which to read, test or load its files. Move what both sides need to a file below both.",
      from: {},
      to: { circular: true },
    },
    {
      name: "layers: folder without a layer",
      severity: "error",
      comment:
        "Every top-level folder and file of src/ belongs to a layer: add it to LAYERS in .dependency-cruiser.cjs, " +
        "in the row its imports put it in, and to docs/development.md#layers.",
      from: { path: "^src/", pathNot: LAYERS.flat().map(pattern) },
      to: {},
    },
    {
      name: "layers: the dashboard",
      severity: "error",
      comment:
        "The dashboard (src/admin/ui) runs in the browser: what it runs may come only from core/ and the " +
        "services' pure modules it shares (services/lifetime.ts, services/key-fields.ts).",
      from: { path: "^src/admin/ui/" },
      to: {
        dependencyTypesNot: ["type-only"],
        path: "^src/",
        pathNot: ["^src/admin/ui/", ...DASHBOARD_RUNS],
      },
    },
    {
      name: "layers: the dashboard's types",
      severity: "error",
      comment:
        "The dashboard's types of the API's answers come from the zod schemas that define them (the schema " +
        "files: *-schema.ts, *-schemas.ts, admin/schemas.ts), type-only, so that nothing of the server is " +
        "bundled; no other file of the server is the dashboard's to read.",
      from: { path: "^src/admin/ui/" },
      to: {
        path: "^src/",
        pathNot: ["^src/admin/ui/", ...DASHBOARD_RUNS, ...SCHEMA_FILES],
      },
    },
  ],
  options: {
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};

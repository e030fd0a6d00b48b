// What a request says about its model, as the key's model list is checked against it (by the reserve script,
// or by an admission lease): no model field, a model field that is not a name, or a named model.

export type ModelCheck = { kind: "none" } | { kind: "unknown" } | { kind: "named"; model: string };

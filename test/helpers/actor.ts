// The actor tests make their changes as: the CLI, as an operator on the server would.

import type { Actor } from "../../src/store/audit/audit-store.js";

export const ACTOR: Actor = { kind: "cli" };

// Stage 4: billing is asked once before forwarding (RequestBilling.admit): the request is priced, its worst
// case, estimates and caps worked out, and that worst case held on the replica's admission lease or reserved
// in Redis (the one round trip before forwarding). The key's fair-sharing settings are read alongside, not
// after. Refuses what the key, its account or its budgets do not allow.

import type { Admission, RequestBilling } from "../../billing/request-billing.js";
import type { RequestSharing } from "../../core/sharing.js";
import type { RequestFailures } from "../../observability/request-failures.js";
import type { SharingCache } from "../sharing/sharing-cache.js";
import { type Admitted, type Inspected, passageOf } from "./phases.js";
import type { Stage } from "./stage.js";

export interface AdmitDeps {
  billing: Pick<RequestBilling, "admit">;
  /** The keys' fair-sharing settings, where fair sharing is on. */
  sharing?: Pick<SharingCache, "get"> | null;
  /** Told when Redis answered a reservation (it logs an outage's end). */
  failures: Pick<RequestFailures, "redisAnswered">;
}

export const admit: Stage<AdmitDeps, Inspected, Admitted> = {
  name: "admit",
  does: "prices it and admits its worst case on the lease, else by a reservation in Redis",
  create: (deps) => {
    const cache = deps.sharing ?? null;
    const { billing, failures } = deps;
    return (inspected) => {
      const { request, credential, facts } = inspected;
      // Only a request the model server runs is queued or given a priority.
      const sharing = request.usageClass !== null && cache !== null ? cache.get(credential.ref) : null;
      const granted = billing.admit(request, credential, inspected.check, {
        model: request.model,
        usageClass: request.usageClass,
        prompt: facts.prompt,
        maxOutputTokens: facts.maxOutputTokens,
        capFields: capFieldsOf(facts.capsSet),
        choices: facts.choices,
      });
      // Admitted on the lease with the settings cached: no promise at all.
      if (granted instanceof Promise || sharing instanceof Promise) {
        return admittedLater(inspected, granted, sharing, failures);
      }
      return admitted(inspected, granted, sharing);
    };
  },
};

async function admittedLater(
  inspected: Inspected,
  granted: Admission | Promise<Admission>,
  sharing: RequestSharing | Promise<RequestSharing> | null,
  failures: AdmitDeps["failures"],
): Promise<Admitted> {
  const admission = granted instanceof Promise ? await granted : granted;
  if (inspected.request.admission === "reserve") failures.redisAnswered();
  // Admitted from here on: whatever fails now releases it (the pipeline sees `admission` on the request's
  // passage).
  const passage = passageOf(inspected);
  passage.admission = admission;
  return admitted(inspected, admission, sharing instanceof Promise ? await sharing : sharing);
}

function admitted(inspected: Inspected, admission: Admission, sharing: RequestSharing | null): Admitted {
  const passage = passageOf(inspected);
  passage.admission = admission;
  passage.sharing = sharing;
  return passage as Admitted;
}

/**
 * The body's cap fields as a refusal names them ("max_tokens", or "a.b or c"): the usual single top-level
 * field without building a string, the rest joined.
 */
function capFieldsOf(capsSet: readonly (readonly string[])[]): string {
  const [only] = capsSet;
  if (capsSet.length === 1 && only !== undefined && only.length === 1) return only[0] as string;
  return capsSet.map((path) => path.join(".")).join(" or ");
}

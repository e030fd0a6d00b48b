// The admin API's routes about sharing a full model server (docs/fair-sharing.md): an account's weight,
// priority and longest wait (operators), a key's own priority and wait (those who may change the account's
// keys), and an account's queueing — on the replica that answers, and in its keys' recent requests.

import type { z } from "zod";
import { accountQueue } from "../services/sharing.js";
import { ACCOUNT, KEY, keyOf, type Route } from "./route.js";
import * as S from "./schemas.js";
import { adminAccountView, adminKeyView } from "./views.js";

export const SHARING_ROUTES: readonly Route[] = [
  {
    method: "PUT",
    path: `${ACCOUNT}/sharing`,
    operationId: "setAccountSharing",
    summary:
      "Change how the account shares a full model server: its weight, the priority its requests carry to the model server, their longest wait (operators)",
    action: "account.sharing",
    body: S.AccountSharingBody,
    status: 200,
    response: S.Account,
    async handle({ principal, params, body, services }) {
      const input = body as z.infer<typeof S.AccountSharingBody>;
      const account = await services.sharing.setAccount(
        params.accountId,
        { weight: input.weight, priority: input.priority, maxWaitMs: input.max_wait_ms },
        principal.actor,
      );
      return adminAccountView(account, services);
    },
  },
  {
    method: "PUT",
    path: `${KEY}/sharing`,
    operationId: "setKeySharing",
    summary:
      "Change the key's own priority at the model server (never more urgent than its account's) and its requests' longest wait",
    action: "keys.write",
    body: S.KeySharingBody,
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const input = call.body as z.infer<typeof S.KeySharingBody>;
      const record = await call.services.sharing.setKey(
        key.id,
        { priority: input.priority, maxWaitMs: input.max_wait_ms },
        call.principal.actor,
      );
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "GET",
    path: `${ACCOUNT}/queue`,
    operationId: "accountQueue",
    summary:
      "The account's queueing for the model server: on the replica that answers, now, and in its keys' recent requests",
    action: "usage.read",
    status: 200,
    response: S.AccountQueue,
    async handle({ params, services }) {
      return accountQueue(services.stores, params.accountId, services.queue ?? null);
    },
  },
];

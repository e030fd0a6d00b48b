// The admin API's routes about an account's keys: list and create, show, change, rotate, disable and
// enable, revoke, and a key's daily usage and recent requests.

import type { z } from "zod";
import { Usage } from "../services/usage-schema.js";
import { ACCOUNT, KEY, keyOf, type Route } from "./route.js";
import * as S from "./schemas.js";
import { adminKeyView } from "./views.js";

export const KEY_ROUTES: readonly Route[] = [
  {
    method: "GET",
    path: `${ACCOUNT}/keys`,
    operationId: "listKeys",
    summary: "The account's keys, revoked and expired ones included",
    action: "keys.read",
    status: 200,
    response: S.Key.array(),
    async handle({ params, services }) {
      const now = services.now();
      return (await services.keys.list(params.accountId)).map((key) =>
        adminKeyView(key, now, services.calendar),
      );
    },
  },
  {
    method: "POST",
    path: `${ACCOUNT}/keys`,
    operationId: "createKey",
    summary: "Create a key; its value is in this response and never again",
    action: "keys.write",
    body: S.CreateKeyBody,
    status: 201,
    response: S.CreatedKey,
    async handle({ principal, params, body, services }) {
      const input = body as z.infer<typeof S.CreateKeyBody>;
      const { record, value } = await services.keys.create(
        {
          accountId: params.accountId,
          name: input.name,
          budget: input.budget,
          period: input.period,
          budgets: input.budgets,
          ttl: input.ttl,
          models: input.models,
          logBodies: input.log_bodies,
          rpm: input.rpm,
          tpm: input.tpm,
          maxParallel: input.max_parallel,
          alertAt: input.alert_at,
        },
        principal.actor,
      );
      return { ...adminKeyView(record, services.now(), services.calendar), key: value };
    },
  },
  {
    method: "GET",
    path: KEY,
    operationId: "showKey",
    summary: "A key",
    action: "keys.read",
    status: 200,
    response: S.Key,
    async handle(call) {
      return adminKeyView(await keyOf(call), call.services.now(), call.services.calendar);
    },
  },
  {
    method: "PATCH",
    path: KEY,
    operationId: "updateKey",
    summary:
      "Change a key's name, budget, period, budget windows, allowed models, privacy switch, lifetime or limits",
    action: "keys.write",
    body: S.UpdateKeyBody,
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const input = call.body as z.infer<typeof S.UpdateKeyBody>;
      const record = await call.services.keys.update(
        key.id,
        {
          name: input.name,
          budget: input.budget,
          period: input.period,
          budgets: input.budgets,
          models: input.models,
          logBodies: input.log_bodies,
          ttl: input.ttl,
          rpm: input.rpm,
          tpm: input.tpm,
          maxParallel: input.max_parallel,
          alertAt: input.alert_at,
        },
        call.principal.actor,
      );
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "POST",
    path: `${KEY}/rotate`,
    operationId: "rotateKey",
    summary:
      "Give a key a new value, in this response and never again; the old one works until the grace period ends",
    action: "keys.write",
    body: S.RotateKeyBody,
    status: 200,
    response: S.CreatedKey,
    async handle(call) {
      const key = await keyOf(call);
      const input = call.body as z.infer<typeof S.RotateKeyBody>;
      const { record, value } = await call.services.keys.rotate(key.id, input.grace, call.principal.actor);
      return { ...adminKeyView(record, call.services.now(), call.services.calendar), key: value };
    },
  },
  {
    method: "POST",
    path: `${KEY}/disable`,
    operationId: "disableKey",
    summary: "Disable a key for a while: refused with key_disabled, everything else kept, until enabled",
    action: "keys.write",
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const { record } = await call.services.keys.setDisabled(key.id, true, call.principal.actor);
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "POST",
    path: `${KEY}/enable`,
    operationId: "enableKey",
    summary: "Enable a disabled key again",
    action: "keys.write",
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const { record } = await call.services.keys.setDisabled(key.id, false, call.principal.actor);
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "POST",
    path: `${KEY}/revoke`,
    operationId: "revokeKey",
    summary: "Revoke a key: every gateway replica refuses it from the next request on",
    action: "keys.write",
    status: 200,
    response: S.Key,
    async handle(call) {
      const key = await keyOf(call);
      const { record } = await call.services.keys.revoke(key.id, call.principal.actor);
      return adminKeyView(record, call.services.now(), call.services.calendar);
    },
  },
  {
    method: "GET",
    path: `${KEY}/usage`,
    operationId: "keyUsage",
    summary: "A key's requests, tokens, cost, latency and errors per day",
    action: "usage.read",
    query: S.UsageQuery,
    status: 200,
    response: Usage,
    async handle(call) {
      const key = await keyOf(call);
      const days = await call.services.keys.usage(key.id, call.query.from, call.query.to);
      return { key_id: key.id, from: days[0]?.date ?? "", to: days.at(-1)?.date ?? "", days };
    },
  },
];

// Stage 5: the request handed to its exchange with the model server (exchange.ts): its body shaped for the
// upstream (forwarded-body.ts), its headers made safe to send (the caller's key never leaves), and what the
// exchange needs to relay and meter the answer written on the request. From here the exchange owns it and
// ends it — meter, settle, record (request-end.ts) — whatever way it goes.

import type { ProxyServer } from "http-proxy-3";
import type { Config } from "../../config/schema.js";
import type { StripMode } from "../../core/request.js";
import { Exchange, type ExchangeDeps, type RelayPlan } from "../relay/exchange.js";
import { prepareUpstreamHeaders } from "../relay/headers.js";
import { rateLimitHeaders } from "../relay/rate-limit-headers.js";
import type { UpstreamGate } from "../sharing/upstream-gate.js";
import { forwardedBody, priorityWriter } from "./forwarded-body.js";
import { type Admitted, passageOf, type Sent } from "./phases.js";
import type { Stage } from "./stage.js";

export interface SendDeps {
  config: { upstream: Config["upstream"] };
  /** The connection to the model server (upstream-proxy.ts). */
  proxy: ProxyServer;
  /** The gate to a model server with a limit (upstream.maxInFlight); null without one. */
  gate?: UpstreamGate | null;
  /** What every exchange is given. */
  exchange: ExchangeDeps;
}

/** What a stream the gateway asked for usage has taken out of it (see StripMode). */
const STRIP_LAST: StripMode = Object.freeze({ everyChunk: false });
const STRIP_EVERY_CHUNK: StripMode = Object.freeze({ everyChunk: true });

export const send: Stage<SendDeps, Admitted, Sent> = {
  name: "send",
  does: "shapes the body and headers and hands it to its exchange with the model server",
  create: (deps) => {
    const { upstream } = deps.config;
    const upstreamAuthorization = upstream.apiKey ? `Bearer ${upstream.apiKey}` : undefined;
    const priority = priorityWriter(upstream);
    const gate = deps.gate ?? null;
    return (admitted) => {
      const { req, res, request, endpoint, facts, admission, sharing, body } = admitted;
      const askUsage =
        upstream.injectStreamUsage &&
        endpoint.streamUsage &&
        facts.json !== null &&
        facts.stream &&
        !facts.asksForUsage;
      const priorityEdit = priority === null || sharing === null ? null : priority(sharing);
      const generation = request.usageClass === "generation";
      const forwarded = forwardedBody(
        body,
        facts,
        endpoint,
        generation,
        admission.cap,
        askUsage,
        priorityEdit,
      );
      const filterModels =
        admitted.method === "GET" && admitted.path === "/v1/models" ? admission.allowedModels : null;
      prepareUpstreamHeaders(req, {
        requestId: admitted.requestId,
        callerToken: admitted.credential.token,
        upstreamAuthorization,
        bodyLength: forwarded.length,
        identityEncoding: askUsage || filterModels !== null,
        protocol: admitted.secure ? "https" : "http",
      });
      const plan: RelayPlan = {
        forwarded,
        received: body,
        strip: askUsage ? (facts.continuousUsage ? STRIP_EVERY_CHUNK : STRIP_LAST) : null,
        filterModels,
        rateLimitHeaders: rateLimitHeaders(admission.rpm, admission.tpm),
      };
      new Exchange(req, res, admission.request, plan, deps.exchange).start(
        deps.proxy,
        request.usageClass === null ? null : gate,
        sharing,
      );
      const passage = passageOf(admitted);
      passage.forwarded = forwarded;
      return passage as Sent;
    };
  },
};

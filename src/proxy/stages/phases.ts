// The request on the path, typed by phase: each stage's output type has what that stage added, so the compiler
// knows what exists at each point (no "this has happened by now" casts). At run time the phases are views of
// one object (Passage), whose every field is set in its constructor, so that every request has one hidden
// class and the path stays monomorphic; a stage writes what it adds on that object (passageOf) and returns it
// as the phase it gives — plain stores into fields that already exist, where Object.assign would build an
// object literal and copy it key by key on every request. The record of the request — what the log line, the metrics and the settlement read — is
// `request` (core/request.ts), written as the stages go.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Credential } from "../../auth/authenticator.js";
import type { Admission } from "../../billing/request-billing.js";
import type { EndpointClass } from "../../core/endpoint-classes.js";
import type { ModelCheck } from "../../core/model-check.js";
import type { GatewayRequest } from "../../core/request.js";
import type { RequestSharing } from "../../core/sharing.js";
import type { Endpoint } from "../request/endpoints.js";
import type { RequestFacts } from "../request/request-facts.js";

/** A request the gateway does not answer itself, as the public listener hands it over. */
export interface Arrived {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly request: GatewayRequest;
  readonly requestId: string;
  readonly method: string;
  /** The URL's path, without the query. */
  readonly path: string;
  /** Whether it came over HTTPS (the socket, or a trusted proxy's X-Forwarded-Proto). */
  readonly secure: boolean;
}

/** Its credential resolved to a key. */
export interface Authenticated extends Arrived {
  readonly credential: Credential;
}

/** An endpoint a key may reach: anything but the model server's management switches. */
export interface ForwardedEndpoint extends Endpoint {
  readonly class: Exclude<EndpointClass, "management">;
}

/** Its endpoint known (and not one of the model server's management switches). */
export interface Classified extends Authenticated {
  readonly endpoint: ForwardedEndpoint;
}

/** Its body read within its limits, and what it asks for read from it. */
export interface Inspected extends Classified {
  readonly body: Buffer;
  readonly facts: RequestFacts;
  /** The model as admission checks it against the key's model list. */
  readonly check: ModelCheck;
}

/** Let in: priced, its worst case held on the lease or reserved; the key's fair-sharing settings read. */
export interface Admitted extends Inspected {
  readonly admission: Admission;
  /** The key's fair-sharing settings, for a request the model server runs, where fair sharing is on. */
  readonly sharing: RequestSharing | null;
}

/** Handed to its exchange with the model server, which ends it (request-end.ts) whatever way it goes. */
export interface Sent extends Admitted {
  /** The body as forwarded (with an output cap, stream_options or a priority written in). */
  readonly forwarded: Buffer;
}

/** The one object behind the phases: every field set here, in the order the stages add them. */
export class Passage implements Arrived {
  credential: Credential | null = null;
  endpoint: ForwardedEndpoint | null = null;
  body: Buffer | null = null;
  facts: RequestFacts | null = null;
  check: ModelCheck | null = null;
  admission: Admission | null = null;
  sharing: RequestSharing | null = null;
  forwarded: Buffer | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly request: GatewayRequest,
    readonly requestId: string,
    readonly method: string,
    readonly path: string,
    readonly secure: boolean,
  ) {}
}

/**
 * The one object behind a phase, for the stage that writes the fields it adds: every phase on the path is the
 * runner's Passage (pipeline.ts creates it), so the stage returns it as the phase it gives once written.
 */
export function passageOf(phase: Arrived): Passage {
  return phase as Passage;
}

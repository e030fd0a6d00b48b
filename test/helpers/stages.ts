// The request path's first stages, run on real HTTP requests for a test of one stage: a loopback listener that
// makes each request a Passage as the pipeline does (pipeline.ts's forward), runs the stages it is given in
// order, keeps the passage and what became of it, and answers a refusal with its error as the pipeline's
// runner would. A test then asserts on the response and on the passage the stages left.

import { asGatewayError, type GatewayError } from "../../src/core/errors.js";
import { GatewayRequest } from "../../src/core/request.js";
import { errorFormatOf, sendError } from "../../src/http/respond.js";
import { Passage } from "../../src/proxy/stages/phases.js";
import { type Listening, listen } from "./http.js";

/** A built stage: any, since at run time every stage is given the request's one passage (as the pipeline does). */
export type RunStage = (input: never) => unknown;

export interface Ran {
  passage: Passage;
  /** The refusal a stage threw, or null when every stage ran. */
  error: GatewayError | null;
}

export interface StageServer extends Listening {
  /** Every request that reached the listener, in order, once its stages have run. */
  ran: Ran[];
}

/**
 * Serves the stages: each request runs them in order. After the last, `done` answers it (the default: 204,
 * for stages that hand nothing over); a stage that throws gets the request answered with its error.
 */
export async function serveStages(
  stages: readonly RunStage[],
  done: (passage: Passage) => void = (passage) => passage.res.writeHead(204).end(),
): Promise<StageServer> {
  const ran: Ran[] = [];
  let count = 0;
  const listening = await listen(async (req, res) => {
    const requestId = `req-${++count}`;
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0] as string;
    const request = new GatewayRequest(requestId, method, path, performance.now());
    request.errorFormat = errorFormatOf(path);
    const passage = new Passage(req, res, request, requestId, method, path, false);
    try {
      for (const stage of stages) await (stage as (passage: Passage) => unknown)(passage);
      ran.push({ passage, error: null });
      done(passage);
    } catch (thrown) {
      const error = asGatewayError(thrown);
      ran.push({ passage, error });
      if (res.destroyed || !req.socket.writable) return;
      res.shouldKeepAlive = false;
      sendError(res, error, { format: request.errorFormat });
    }
  });
  return Object.assign(listening, { ran });
}

// One look at the model server when the gateway starts: GET /v1/models, with a short timeout, never
// holding the start-up back. A server that does not answer is worth a warning before the first client
// meets a 502; the gateway starts either way (the model server may well come up after it).

import type { Logger } from "pino";

export const PROBE_TIMEOUT_MS = 3000;
/** Tells the probe apart from forwarded requests in the model server's logs. */
export const PROBE_USER_AGENT = "tunnel-gateway start-up check";

export interface UpstreamSettings {
  url: string;
  apiKey?: string | undefined;
}

/** Probes the upstream; resolves once it answered, failed or `signal` aborted (the gateway closing). */
export async function probeUpstream(
  upstream: UpstreamSettings,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const url = `${upstream.url.replace(/\/$/, "")}/v1/models`;
  try {
    const res = await fetch(url, {
      headers: {
        "user-agent": PROBE_USER_AGENT,
        ...(upstream.apiKey && { authorization: `Bearer ${upstream.apiKey}` }),
      },
      signal: AbortSignal.any([signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]),
    });
    await res.body?.cancel();
    logger.info({ upstream: upstream.url, status: res.status }, "model server answers");
  } catch (error) {
    if (signal.aborted) return;
    const cause = (error as Error & { cause?: Error }).cause ?? (error as Error);
    logger.warn(
      {
        upstream: upstream.url,
        err: cause.name === "TimeoutError" ? `no answer within ${PROBE_TIMEOUT_MS} ms` : cause.message,
      },
      "model server does not answer GET /v1/models; requests will get 502 or 504 until it does",
    );
  }
}

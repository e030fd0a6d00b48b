// Sends one webhook request: POST of the JSON body with the event id and signature headers, within a time
// limit, redirects not followed, the answer read (up to a few KiB) and dropped. Any 2xx is a delivery.
//
// Accounts' webhooks are refused addresses in private, loopback, link-local and other non-public ranges unless
// alerts.allowPrivateNetworks is on: an account owner must not be able to make the gateway call into the
// network it runs in (cloud metadata services, Redis, the admin port). The check is made on the addresses the
// name resolves to, at connection time, so a name that resolves differently later cannot slip past it.

import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import type { Attempt } from "./delivery-plan.js";
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signature } from "./signing.js";

/** How every webhook request of a gateway is sent (alerts.delivery, alerts.allowPrivateNetworks). */
export interface SenderSettings {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  userAgent: string;
}

export interface WebhookRequest {
  url: string;
  secret: string;
  eventId: string;
  body: string;
  /** Unix seconds of the signature. */
  timestamp: number;
  timeoutMs: number;
  /** Refuse non-public addresses (accounts' webhooks, unless alerts.allowPrivateNetworks). */
  publicOnly: boolean;
  userAgent: string;
}

/** The User-Agent of every webhook request. */
export const WEBHOOK_USER_AGENT = "tunnel-gateway-webhooks/1";

/** Most of a receiver's answer read before it is dropped. */
const MAX_ANSWER_BYTES = 16 * 1024;

const NON_PUBLIC = new BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  NON_PUBLIC.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  NON_PUBLIC.addSubnet(address, prefix, "ipv6");
}

/** Whether an address is outside the public internet (private, loopback, link-local, multicast, …). */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return NON_PUBLIC.check(mapped[1] as string, "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return NON_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** dns.lookup, refusing a name that resolves to a non-public address. */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    const refused = addresses.find((entry) => isNonPublicAddress(entry.address));
    if (refused) {
      return callback(
        new Error(
          `${hostname} resolves to ${refused.address}, which is not a public address (alerts.allowPrivateNetworks is off)`,
        ),
        "",
        0,
      );
    }
    if (options.all) return callback(null, addresses as unknown as string, 0);
    const [first] = addresses;
    return callback(null, first?.address ?? "", first?.family ?? 4);
  });
};

export function sendWebhook(request: WebhookRequest): Promise<Attempt> {
  const url = new URL(request.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (request.publicOnly && isIP(host) !== 0 && isNonPublicAddress(host)) {
    return Promise.resolve({
      ok: false,
      statusCode: null,
      error: `${host} is not a public address (alerts.allowPrivateNetworks is off)`,
    });
  }
  const body = Buffer.from(request.body);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const finish = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(attempt);
    };
    const req = send(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": body.length,
        "user-agent": request.userAgent,
        [EVENT_ID_HEADER]: request.eventId,
        [SIGNATURE_HEADER]: signature(request.secret, request.body, request.timestamp),
      },
      ...(request.publicOnly && { lookup: publicLookup }),
    });
    const timer = setTimeout(() => {
      finish({ ok: false, statusCode: null, error: `no answer within ${request.timeoutMs} ms` });
      req.destroy();
    }, request.timeoutMs);
    req.on("response", (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const done = () => finish(outcome(status));
      res.on("end", done);
      res.on("close", done);
      res.on("error", done);
    });
    req.on("error", (error: Error) => finish({ ok: false, statusCode: null, error: describe(error) }));
    req.end(body);
  });
}

function outcome(status: number): Attempt {
  if (status >= 200 && status < 300) return { ok: true, statusCode: status, error: null };
  if (status >= 300 && status < 400)
    return { ok: false, statusCode: status, error: `HTTP ${status}: redirects are not followed` };
  return { ok: false, statusCode: status, error: `HTTP ${status}` };
}

/**
 * A connection failure in Node's words ("connect ECONNREFUSED 203.0.113.5:443", "getaddrinfo ENOTFOUND …"),
 * which name the host and address, never the URL's path or query, where a secret may be.
 */
function describe(error: Error): string {
  return error.message;
}

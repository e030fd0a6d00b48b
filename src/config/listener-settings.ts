// The listeners' settings: the public one (listen, auth, tls, security, shutdown), the metrics one
// (metrics, and telemetry beside it) and the admin one (admin, with the dashboard's external URL).

import { z } from "zod";
import { cidr, file, host, httpUrl, port, secret } from "./fields.js";

/**
 * The dashboard's URL as people's browsers reach it (scheme, host and port only: it is served at the root),
 * e.g. https://gateway.example.com behind an ingress.
 */
const externalUrl = httpUrl.refine((url) => !URL.canParse(url) || ["", "/"].includes(new URL(url).pathname), {
  error:
    "must be an origin such as https://gateway.example.com, without a path: the dashboard is served at /",
});

export const listenSection = z
  .strictObject({
    host: host.default("127.0.0.1"),
    port: port.default(8080),
  })
  .prefault({});

export const authSection = z
  .strictObject({
    acceptXApiKey: z.boolean().default(true),
  })
  .prefault({});

export const tlsSection = z
  .strictObject({
    certFile: file.optional(),
    keyFile: file.optional(),
  })
  .refine((tls) => (tls.certFile === undefined) === (tls.keyFile === undefined), {
    error: "certFile and keyFile go together: give both or neither",
  })
  .prefault({});

export const securitySection = z
  .strictObject({
    requireHttps: z.boolean().default(false),
    trustedProxies: z.array(cidr).default([]),
    hstsMaxAgeSeconds: z.number().int().min(0).default(31_536_000),
  })
  .prefault({});

export const shutdownSection = z
  .strictObject({
    drainSeconds: z.number().int().min(0).default(30),
  })
  .prefault({});

export const metricsSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    host: host.default("127.0.0.1"),
    port: port.default(9464),
    token: secret.optional(),
    perKey: z.boolean().default(true),
    maxKeySeries: z.number().int().min(0).default(1000),
    maxModelSeries: z.number().int().min(1).default(100),
    maxAccountSeries: z.number().int().min(0).default(1000),
  })
  .prefault({});

/** OpenTelemetry: on and off, endpoints and sampling come from the standard OTEL_* variables. */
export const telemetrySection = z
  .strictObject({
    genAiProvider: z.string().trim().min(1).max(64).default("vllm"),
  })
  .prefault({});

export const adminSection = z
  .strictObject({
    host: host.default("127.0.0.1"),
    port: port.default(8081),
    token: secret.optional(),
    externalUrl: externalUrl.optional(),
  })
  .prefault({});

// An OTLP/HTTP receiver for tests, standing in for an OpenTelemetry Collector (whose binary no package registry
// this project uses serves): it accepts POST /v1/traces and /v1/metrics as a Collector does, keeps every
// payload's raw bytes (to scan them for what must never be exported), and reads the OTLP/JSON ones into spans
// and metrics. OTLP/JSON is what the SDK's own serializer (@opentelemetry/otlp-transformer) writes for the
// http/json protocol; protobuf payloads are kept as bytes.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpPayload {
  path: string;
  contentType: string;
  body: Buffer;
}

/** An attribute as OTLP/JSON writes it. */
interface JsonAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  events: { name: string; timeNs: bigint }[];
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  resource: Record<string, string | number | boolean>;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  /** A histogram's aggregation temporality: 1 delta, 2 cumulative. */
  temporality: number;
  /** Each data point's attributes, count and explicit bounds. */
  points: {
    attributes: Record<string, string | number | boolean>;
    count: number;
    sum: number;
    bounds: number[];
  }[];
}

export interface OtlpReceiver {
  url: string;
  payloads: OtlpPayload[];
  spans(): ReceivedSpan[];
  metrics(): ReceivedMetric[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const payloads: OtlpPayload[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "";
      const contentType = req.headers["content-type"] ?? "";
      payloads.push({ path, contentType, body: Buffer.concat(chunks) });
      if (path !== "/v1/traces" && path !== "/v1/metrics") {
        res.writeHead(404).end();
        return;
      }
      // An empty ExportServiceResponse: everything accepted.
      if (contentType.includes("json")) res.writeHead(200, { "content-type": "application/json" }).end("{}");
      else res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const json = (path: string) =>
    payloads
      .filter((payload) => payload.path === path && payload.contentType.includes("json"))
      .map((payload) => JSON.parse(payload.body.toString("utf8")));
  return {
    url: `http://127.0.0.1:${port}`,
    payloads,
    spans: () =>
      json("/v1/traces").flatMap((request) =>
        request.resourceSpans.flatMap((resourceSpans: any) =>
          resourceSpans.scopeSpans.flatMap((scope: any) =>
            scope.spans.map((span: any) => readSpan(span, attributesOf(resourceSpans.resource?.attributes))),
          ),
        ),
      ),
    metrics: () =>
      json("/v1/metrics").flatMap((request) =>
        request.resourceMetrics.flatMap((resourceMetrics: any) =>
          resourceMetrics.scopeMetrics.flatMap((scope: any) => scope.metrics.map(readMetric)),
        ),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readSpan(span: any, resource: ReceivedSpan["resource"]): ReceivedSpan {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? "",
    name: span.name,
    kind: span.kind,
    startNs: BigInt(span.startTimeUnixNano),
    endNs: BigInt(span.endTimeUnixNano),
    attributes: attributesOf(span.attributes),
    events: (span.events ?? []).map((event: any) => ({
      name: event.name,
      timeNs: BigInt(event.timeUnixNano),
    })),
    status: span.status?.code ?? 0,
    resource,
  };
}

function readMetric(metric: any): ReceivedMetric {
  const points = metric.histogram?.dataPoints ?? [];
  return {
    name: metric.name,
    unit: metric.unit ?? "",
    temporality: Number(metric.histogram?.aggregationTemporality ?? 0),
    points: points.map((point: any) => ({
      attributes: attributesOf(point.attributes),
      count: Number(point.count),
      sum: Number(point.sum),
      bounds: point.explicitBounds ?? [],
    })),
  };
}

function attributesOf(attributes: JsonAttribute[] | undefined): Record<string, string | number | boolean> {
  const read: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    read[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.doubleValue ??
      value.boolValue ??
      "";
  }
  return read;
}

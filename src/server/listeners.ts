// Binding the gateway's listeners (public, metrics, admin) all or none. A gateway that cannot open one of
// them must not run half-started — its public port answering /healthz while metrics or the admin API are
// missing would pass a liveness probe — so a failure closes those already bound and is reported naming the
// address, the setting that chose it and where that setting came from.

import { once } from "node:events";
import type { Server } from "node:http";
import { GatewayError } from "../core/errors.js";

export interface Listener {
  /** What it serves, for the message: "the public API", "metrics", "the admin API". */
  role: string;
  server: Server;
  host: string;
  port: number;
  /** The settings that chose the address, e.g. "metrics.port". */
  setting: { host: string; port: string };
  /** Where a setting came from: "--metrics-port", "TUNNEL_METRICS_PORT", "<file> line 12" or "default". */
  origin: (setting: string) => string;
}

/** Binds every listener in turn; on a failure closes those bound and throws service_unavailable saying why. */
export async function bindAll(listeners: readonly Listener[]): Promise<void> {
  const bound: Server[] = [];
  for (const listener of listeners) {
    try {
      listener.server.listen(listener.port, listener.host);
      await once(listener.server, "listening");
      bound.push(listener.server);
    } catch (error) {
      await Promise.all(bound.map(close));
      throw new GatewayError(
        "service_unavailable",
        describeFailure(listener, error as NodeJS.ErrnoException),
        {
          cause: error,
        },
      );
    }
  }
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** "cannot listen for metrics on 127.0.0.1:9464: the port is in use (metrics.port 9464 from --metrics-port)" */
function describeFailure(listener: Listener, error: NodeJS.ErrnoException): string {
  const { host, port, setting, origin } = listener;
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const chosen = (name: string, value: string | number) => {
    const from = origin(name);
    return from === "default" ? `${name} ${value}, the default` : `${name} ${value} from ${from}`;
  };
  const portSetting = chosen(setting.port, port);
  const hostSetting = chosen(setting.host, host);
  const [reason, settings] = ((): [string, string] => {
    switch (error.code) {
      case "EADDRINUSE":
        return ["the port is in use by another process", portSetting];
      case "EACCES":
        return ["permission denied (ports below 1024 need privileges)", portSetting];
      case "EADDRNOTAVAIL":
        return ["the address is not one of this machine's", hostSetting];
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return ["the host name does not resolve", hostSetting];
      default:
        return [error.code ?? error.message, `${hostSetting}, ${portSetting}`];
    }
  })();
  return `cannot listen for ${listener.role} on ${address}: ${reason} (${settings})`;
}

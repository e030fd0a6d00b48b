// HTTPS: a real TLS listener with a certificate made by the test, plain HTTP refused before the key is
// looked at, X-Forwarded-Proto believed only from trusted proxies, HSTS on HTTPS answers, and certificate
// files reloaded when they change.

import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { renameSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { PeerCertificate, TLSSocket } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { readTlsFiles, watchTlsFiles } from "../../src/server/tls-files.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

interface Certificate {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: string;
}

const temporaryDirectory = temporaryDirectories("tunnel-tls-");

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
function makeCertificate(commonName: string, dir = temporaryDirectory()): Certificate {
  const certFile = join(dir, "tls.crt");
  const keyFile = join(dir, "tls.key");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-subj",
      `/CN=${commonName}`,
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      `${keyFile}.new`,
      "-out",
      `${certFile}.new`,
    ],
    { stdio: "ignore" },
  );
  // Swapped into place like a Secret volume update: never a half-written file under the watched name.
  renameSync(`${keyFile}.new`, keyFile);
  renameSync(`${certFile}.new`, certFile);
  return { dir, certFile, keyFile, cert: execFileSync("cat", [certFile]).toString() };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  peer: PeerCertificate;
}

function getHttps(url: string, ca: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, headers, agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          peer: (res.socket as TLSSocket).getPeerCertificate(),
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("the gateway's own TLS", () => {
  it("serves HTTPS with the configured certificate, and HSTS on its answers", async () => {
    const certificate = makeCertificate("gateway-one");
    t = await startTestGateway({
      config: {
        tls: { certFile: certificate.certFile, keyFile: certificate.keyFile },
        security: { requireHttps: true },
      },
    });
    expect(t.url).toMatch(/^https:/);
    const key = await t.newKey();
    const answer = await getHttps(`${t.url}/v1/key`, certificate.cert, {
      authorization: `Bearer ${key.value}`,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).id).toBe(key.id);
    expect(answer.peer.subject.CN).toBe("gateway-one");
    expect(answer.headers["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
    // Probes answer too (over TLS here, as the chart configures them when the gateway serves TLS).
    expect((await getHttps(`${t.url}/healthz`, certificate.cert)).status).toBe(200);
  });

  it("refuses to start with a certificate and key that do not belong together, naming the problem", async () => {
    const one = makeCertificate("one");
    const two = makeCertificate("two");
    await expect(
      startTestGateway({ config: { tls: { certFile: one.certFile, keyFile: two.keyFile } } }),
    ).rejects.toThrow(/key values mismatch|KEY_VALUES_MISMATCH/);
  });
});

describe("certificate files", () => {
  it("are reloaded when they change, and a pair that does not load leaves the current one serving", async () => {
    const first = makeCertificate("before-rotation");
    const server = createHttpsServer(readTlsFiles(first), (_req, res) => res.end("ok"));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const errors: Error[] = [];
    let reloads = 0;
    const stop = watchTlsFiles(
      first,
      (options) => {
        server.setSecureContext(options);
        reloads++;
      },
      (error) => errors.push(error),
      20,
    );
    try {
      expect((await getHttps(url, first.cert)).peer.subject.CN).toBe("before-rotation");

      // A broken key file: the old pair keeps serving.
      writeFileSync(`${first.keyFile}.broken`, "not a key");
      renameSync(`${first.keyFile}.broken`, first.keyFile);
      await waitUntil(() => errors.length > 0, "the broken key to be noticed");
      expect((await getHttps(url, first.cert)).peer.subject.CN).toBe("before-rotation");

      const second = makeCertificate("after-rotation", first.dir);
      await waitUntil(() => reloads > 0, "the new certificate to be loaded");
      expect((await getHttps(url, second.cert)).peer.subject.CN).toBe("after-rotation");
    } finally {
      stop();
      server.close();
    }
  });
});

describe("plain HTTP where HTTPS is required", () => {
  it("is refused with 403 https_required before the key is looked at, and the key is never logged", async () => {
    t = await startTestGateway({ config: { security: { requireHttps: true } } });
    const key = await t.newKey();
    for (const [path, init] of [
      ["/v1/key", { key: key.value }],
      ["/v1/chat/completions", { key: key.value, method: "POST", body: "{}" }],
      ["/v1/balance", { key: `sk-tunnel-${"0".repeat(64)}` }],
    ] as const) {
      const res = await t.fetch(path, init);
      expect(res.status, path).toBe(403);
      expect(res.headers.get("strict-transport-security")).toBeNull();
      expect((await json(res)).error).toMatchObject({ code: "https_required", type: "permission_error" });
    }
    expect(JSON.stringify(t.logs)).not.toContain(key.value.slice(10));
    expect(t.logs.filter((line) => line.code === "https_required")).toHaveLength(3);
    // The kubelet's probes carry no key and keep answering over plain HTTP.
    expect((await t.fetch("/healthz")).status).toBe(200);
    expect((await t.fetch("/readyz")).status).toBe(200);
  });

  it("is accepted with X-Forwarded-Proto: https from a trusted proxy only", async () => {
    t = await startTestGateway({
      config: { security: { requireHttps: true, trustedProxies: ["127.0.0.0/8"] } },
    });
    const key = await t.newKey();
    const viaProxy = await t.fetch("/v1/key", { key: key.value, headers: { "x-forwarded-proto": "https" } });
    expect(viaProxy.status).toBe(200);
    expect(viaProxy.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    const plainViaProxy = await t.fetch("/v1/key", {
      key: key.value,
      headers: { "x-forwarded-proto": "http" },
    });
    expect(plainViaProxy.status).toBe(403);
    await t.close();

    t = await startTestGateway({
      config: { security: { requireHttps: true, trustedProxies: ["10.0.0.0/8", "fd00::/8"] } },
    });
    const other = await t.newKey();
    const spoofed = await t.fetch("/v1/key", { key: other.value, headers: { "x-forwarded-proto": "https" } });
    expect(spoofed.status).toBe(403);
    expect((await json(spoofed)).error.code).toBe("https_required");
  });
});

// Self-signed certificates for 127.0.0.1 and localhost, made with openssl, swapped into place the way a
// Kubernetes Secret volume is updated (never a half-written file under the watched name).

import { execFileSync } from "node:child_process";
import { readFileSync, renameSync } from "node:fs";
import { join } from "node:path";

export interface Certificate {
  certFile: string;
  keyFile: string;
  cert: string;
}

export function makeCertificate(commonName: string, dir: string): Certificate {
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
  renameSync(`${keyFile}.new`, keyFile);
  renameSync(`${certFile}.new`, certFile);
  return { certFile, keyFile, cert: readFileSync(certFile, "utf8") };
}

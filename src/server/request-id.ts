// The id that ties a response (X-Request-Id header) to its log line. A client's own id is kept when it is
// a reasonable token; anything else is replaced, so that a header cannot inject text into the logs.

import { randomUUID } from "node:crypto";

const ACCEPTABLE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === "string" && ACCEPTABLE.test(header) ? header : randomUUID();
}

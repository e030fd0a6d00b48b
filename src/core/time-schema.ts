// An instant as every JSON shape of the gateway writes it, for their zod schemas: ISO-8601 UTC, such as
// 2026-11-21T10:00:00.000Z (the OpenAPI document's date-time).

import { z } from "zod";

export const isoTime = z.string().meta({ format: "date-time" });

// Writes src/admin/openapi.json from the route table (run after `npm run build`: it loads dist/).
import { writeFileSync } from "node:fs";
import { openApiDocument } from "../dist/admin/openapi.js";

writeFileSync(
  new URL("../src/admin/openapi.json", import.meta.url),
  `${JSON.stringify(openApiDocument(), null, 2)}\n`,
);

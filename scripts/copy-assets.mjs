// Copies what the compiled gateway reads at run time but tsc does not emit: the Lua scripts.
import { cpSync, rmSync } from "node:fs";

rmSync("dist/store/lua", { recursive: true, force: true });
cpSync("src/store/lua", "dist/store/lua", { recursive: true });

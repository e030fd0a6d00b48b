// No container engine here: the Dockerfile's essentials are checked as text, and the files the runtime image
// copies are checked to exist and to be what the gateway needs at run time.

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dockerfile = readFileSync(`${ROOT}Dockerfile`, "utf8");
const dockerignore = readFileSync(`${ROOT}.dockerignore`, "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));

/** The instructions of the Dockerfile, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));

/** The instructions of each stage, by stage name (the last stage is "runtime"). */
function stages(): Map<string, string[]> {
  const byStage = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const instruction of instructions) {
    const from = /^FROM (\S+)(?: AS (\S+))?$/i.exec(instruction);
    if (from) {
      current = [];
      byStage.set(from[2] ?? from[1] ?? "", current);
    } else {
      current?.push(instruction);
    }
  }
  return byStage;
}

describe("Dockerfile", () => {
  const all = stages();
  const runtime = all.get("runtime") ?? [];

  it("builds in three stages on node:24-slim, the runtime last", () => {
    expect(instructions).toContain("ARG NODE_IMAGE=node:24-slim");
    expect([...all.keys()]).toEqual(["build", "deps", "runtime"]);
    for (const from of instructions.filter((i) => i.startsWith("FROM "))) {
      expect(from).toMatch(/^FROM \$\{NODE_IMAGE\} AS (build|deps|runtime)$/);
    }
  });

  it("compiles in the build stage and installs only production dependencies for the runtime", () => {
    expect(all.get("build")).toContain("RUN npm run build");
    expect(all.get("deps")?.join("\n")).toMatch(/RUN npm ci --omit=dev --ignore-scripts/);
    expect(runtime).toContain("COPY --from=deps /app/node_modules ./node_modules");
    expect(runtime).toContain("COPY --from=build /app/dist ./dist");
    expect(runtime.some((i) => /COPY --from=build \/app\/node_modules/.test(i))).toBe(false);
    expect(runtime.some((i) => /^RUN npm /.test(i))).toBe(false);
  });

  it("ships config/default.yaml next to dist and package.json (type: module)", () => {
    expect(instructions).toContain("WORKDIR /app");
    expect(runtime).toContain("COPY config ./config");
    expect(runtime).toContain("COPY package.json ./");
    expect(existsSync(`${ROOT}config/default.yaml`)).toBe(true);
    expect(JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).type).toBe("module");
  });

  it("runs as the unprivileged node user (uid 1000)", () => {
    const users = runtime.filter((i) => i.startsWith("USER "));
    expect(users).toEqual(["USER node"]);
    expect(runtime.indexOf("USER node")).toBeGreaterThan(
      runtime.findLastIndex((i) => /^(RUN|COPY) /.test(i)),
    );
  });

  it("runs node under tini, serving by default", () => {
    expect(runtime.join("\n")).toMatch(/apt-get install -y --no-install-recommends tini/);
    expect(runtime).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/cli.js"]');
    expect(runtime).toContain('CMD ["serve"]');
  });

  it("sets production mode and the larger V8 semi-space, with the reason next to it", () => {
    expect(runtime.join("\n")).toMatch(/ENV NODE_ENV=production\s+NODE_OPTIONS=--max-semi-space-size=64/);
    // The reason, and where the measurement behind it is.
    expect(dockerfile).toMatch(/# NODE_OPTIONS: a 64 MiB semi-space[\s\S]*docs\/benchmarks\.md/);
  });

  it("checks /healthz with node itself, and exposes the three ports", () => {
    const healthcheck = runtime.find((i) => i.startsWith("HEALTHCHECK")) ?? "";
    expect(healthcheck).toMatch(/CMD \["node", "-e", ".*\/healthz/);
    expect(healthcheck).toContain("process.env.TUNNEL_PORT||8080");
    expect(runtime).toContain("EXPOSE 8080 8081 9464");
  });

  it("labels the image with OCI annotations", () => {
    for (const label of ["title", "description", "licenses", "version", "revision", "source"]) {
      expect(dockerfile).toContain(`org.opencontainers.image.${label}=`);
    }
  });

  it("writes nothing at run time: no VOLUME, logs on stdout", () => {
    expect(instructions.some((i) => i.startsWith("VOLUME"))).toBe(false);
  });
});

describe(".dockerignore", () => {
  it("keeps dependencies, build output, VCS data and test artefacts out of the build context", () => {
    for (const entry of ["node_modules", "dist", ".git", "coverage", "test", "bench", ".artifacts", "helm"]) {
      expect(dockerignore).toContain(entry);
    }
  });

  it("keeps what the build needs in the context", () => {
    for (const needed of ["src", "scripts", "config", "package.json", "package-lock.json", "tsconfig.json"]) {
      expect(dockerignore).not.toContain(needed);
    }
    expect(existsSync(`${ROOT}tsconfig.build.json`)).toBe(true);
  });
});

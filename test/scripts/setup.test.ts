// scripts/setup.sh on machines it cannot be tried on here: a copy of the clone's manifests and scripts, and a
// PATH of stand-ins for apt-get, sudo, id and npm that record how they were called, with the system's
// commands present or not as each test needs. Chromium is the exception: the script looks for it at
// /usr/bin/chromium, which a test cannot hide, so this machine must have it (the dashboard test needs it too).

import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const ROOT = join(import.meta.dirname, "../..");
/** The system packages the script installs, by the command that shows each is there. */
const PACKAGE_OF = {
  "redis-server": "redis-server",
  "redis-cli": "redis-tools",
  promtool: "prometheus",
  openssl: "openssl",
  faketime: "faketime",
} as const;
type Command = keyof typeof PACKAGE_OF;
const EVERY_COMMAND = Object.keys(PACKAGE_OF) as Command[];

const temporaryDirectory = temporaryDirectories("tunnel-setup-");

beforeAll(() => {
  if (!existsSync("/usr/bin/chromium"))
    throw new Error("/usr/bin/chromium is missing: run `bash scripts/setup.sh`, which installs it");
});

function stub(dir: string, name: string, body: string): void {
  writeFileSync(join(dir, name), `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
}

interface Machine {
  /** Runs the clone's scripts/setup.sh; `calls` are the stand-ins' invocations during that run. */
  setup(): { status: number | null; stdout: string; stderr: string; calls: string[] };
}

/**
 * A fresh clone (no node_modules, no dist) on a machine whose PATH has the given system commands, a user of
 * the given uid, and sudo or not.
 */
function machine(options: { uid: number; present: Command[]; sudo: boolean }): Machine {
  const base = temporaryDirectory();
  const clone = join(base, "clone");
  const bin = join(base, "bin");
  const log = join(base, "calls.log");
  mkdirSync(join(clone, "scripts"), { recursive: true });
  mkdirSync(bin);
  for (const file of ["package.json", "package-lock.json", "scripts/setup.sh"]) {
    copyFileSync(join(ROOT, file), join(clone, file));
  }
  // The few real programs the script and the stand-ins run; nothing else of the system is on PATH.
  for (const name of ["bash", "env", "dirname", "mkdir", "chmod"]) {
    symlinkSync(
      execFileSync("bash", ["-c", `command -v ${name}`])
        .toString()
        .trim(),
      join(bin, name),
    );
  }
  const record = `printf '%s\\n' "$*" >> ${JSON.stringify(log)}`;
  // Node runs the version check; the helm unpacking is the chart tests' business, not this test's.
  stub(
    bin,
    "node",
    `if [ "$1" = scripts/helm.mjs ]; then printf 'helm %s\\n' "\${*:2}" >> ${JSON.stringify(log)}; echo v4.0.0-stand-in; exit; fi
exec ${JSON.stringify(process.execPath)} "$@"`,
  );
  stub(bin, "id", `[ "$1" = -u ] && echo ${options.uid}`);
  // sudo resets the environment (env_reset), keeping little more than PATH.
  if (options.sudo)
    stub(bin, "sudo", `printf 'sudo ' >> ${JSON.stringify(log)}\nexec env -i PATH="$PATH" "$@"`);
  // npm ci installs node_modules and, through the prepare script, builds dist/.
  stub(
    bin,
    "npm",
    `printf 'npm ' >> ${JSON.stringify(log)}; ${record}
if [ "$1" = ci ]; then mkdir -p node_modules dist/demo; : > dist/demo/run-demo.js; : > node_modules/.package-lock.json; fi`,
  );
  const systemCommand = (name: string) => stub(bin, name, "exit 0");
  for (const name of options.present) systemCommand(name);
  // apt-get install provides the commands of the packages it is given.
  stub(
    bin,
    "apt-get",
    `printf 'apt-get(DEBIAN_FRONTEND=%s) ' "\${DEBIAN_FRONTEND:-}" >> ${JSON.stringify(log)}; ${record}
if [ "$1" = install ]; then
  for package in "$@"; do
    case "$package" in
${EVERY_COMMAND.map((name) => `      ${PACKAGE_OF[name]}) printf '#!/usr/bin/env bash\\n' > ${JSON.stringify(join(bin, name))}; chmod +x ${JSON.stringify(join(bin, name))} ;;`).join("\n")}
    esac
  done
fi`,
  );

  return {
    setup() {
      writeFileSync(log, "");
      const result = spawnSync("bash", [join(clone, "scripts/setup.sh")], {
        env: { PATH: bin, HOME: base },
        encoding: "utf8",
      });
      const calls = readFileSync(log, "utf8").split("\n").filter(Boolean);
      return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls };
    },
  };
}

const APT_INSTALL = "install -y -qq --no-install-recommends";

describe("scripts/setup.sh", () => {
  it("on a fresh clone with every system package present, installs only the npm dependencies", () => {
    const run = machine({ uid: 0, present: EVERY_COMMAND, sudo: false }).setup();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.calls).toEqual(["npm ci --no-audit --no-fund", "helm version --short"]);
    expect(run.stdout).toContain("system packages present");
  });

  it("as root, installs what is missing with apt-get itself", () => {
    const run = machine({
      uid: 0,
      present: ["redis-server", "redis-cli", "openssl", "faketime"],
      sudo: true,
    }).setup();
    expect(run.status).toBe(0);
    expect(run.calls).toEqual([
      "apt-get(DEBIAN_FRONTEND=) update -qq",
      `apt-get(DEBIAN_FRONTEND=noninteractive) ${APT_INSTALL} prometheus`,
      "npm ci --no-audit --no-fund",
      "helm version --short",
    ]);
  });

  it("as another user, installs what is missing through sudo, keeping apt-get non-interactive", () => {
    const run = machine({ uid: 1000, present: ["openssl"], sudo: true }).setup();
    expect(run.status).toBe(0);
    expect(run.calls.slice(0, 2)).toEqual([
      "sudo apt-get(DEBIAN_FRONTEND=) update -qq",
      `sudo apt-get(DEBIAN_FRONTEND=noninteractive) ${APT_INSTALL} redis-server redis-tools prometheus faketime`,
    ]);
  });

  it("run again, installs nothing", () => {
    const box = machine({ uid: 1000, present: ["redis-cli"], sudo: true });
    expect(box.setup().status).toBe(0);
    const again = box.setup();
    expect(again.status).toBe(0);
    expect(again.calls).toEqual(["helm version --short"]);
    expect(again.stdout).toContain("npm dependencies up to date");
  });

  it("without root or sudo, stops before changing anything and names the packages it needs", () => {
    const run = machine({ uid: 1000, present: ["promtool", "openssl", "faketime"], sudo: false }).setup();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      "missing redis-server redis-tools: run this script as root, or install sudo.",
    );
    expect(run.calls).toEqual([]);
  });
});

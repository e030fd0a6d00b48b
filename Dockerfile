# syntax=docker/dockerfile:1
# The tunnel-gateway image: Node 24 on Debian slim, production dependencies only, running as the unprivileged
# `node` user (uid 1000) under tini. It writes nothing at run time (logs go to stdout), so it runs with a
# read-only root file system. Build: docker build -t tunnel-gateway:0.1.0 .

ARG NODE_IMAGE=node:24-slim

# Build stage: all dependencies, then tsc and the assets the build copies into dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No lifecycle scripts yet: `prepare` would build before the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Production dependencies only. No install scripts are needed: the one native addon (@node-rs/argon2, password
# hashing) comes prebuilt for the platform as an npm package of its own.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=""
LABEL org.opencontainers.image.title="tunnel-gateway" \
      org.opencontainers.image.description="Metered, key-authenticated gateway in front of a self-hosted OpenAI-compatible model server, billed in rubles" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.base.name="docker.io/library/node:24-slim"

# tini as PID 1: it forwards SIGTERM to node (which then drains), reaps zombies (processes that
# `kubectl exec` leaves behind are re-parented to PID 1) and passes node's exit code through. Node itself as
# PID 1 would get no default signal dispositions from the kernel and would reap nothing.
# npm, npx and corepack are removed: nothing runs them at run time, and they are most of the image's CVEs.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
 && mkdir -p /etc/tunnel-gateway

# NODE_OPTIONS: a 64 MiB semi-space (young generation) instead of V8's default 16 MiB: fewer scavenges.
# Measured A/B (docs/benchmarks.md, "Memory"): 200 concurrent streams cost 9-20% less CPU per event, with a
# lower event-delay p99; small requests cost about the same. It costs up to ~3 x 64 MiB of heap: give the
# container at least 256 MiB of memory. `serve` started without it gives it to itself (src/cli/v8-tuning.ts),
# so the README's `node dist/cli.js serve` behaves the same (docs/deploying.md, "V8 tuning").
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=64

WORKDIR /app
# Owned by root and read-only to the node user: the process cannot change its own code.
COPY package.json ./
COPY config ./config
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

USER node
# public API, admin API and dashboard, Prometheus metrics
EXPOSE 8080 8081 9464

# Docker's own health check (Kubernetes ignores it and uses the chart's probes). slim has no curl: node asks.
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.TUNNEL_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/cli.js"]
CMD ["serve"]

# paw: the platform automation worker, as a container image.
#
#   docker build -t paw .
#   docker run --rm paw --help
#   docker run -d -e PAW_REDIS_URL=redis://redis:6379 -e PAW_CREDENTIALS_FILE=/run/secrets/paw.json \
#     -v ./secrets/paw-ops-tokens:/run/secrets/paw-ops-tokens:ro \
#     -v ./jobs:/app/jobs:ro -p 8090:8090 paw start
#
# Four stages: the compiler (all dependencies, tsc and paw's Lua scripts: bin/build.mjs); the production dependencies alone, without
# the files no program loads; the accounts and folders of the runtime, made where there is a
# shell; and the runtime itself. The runtime starts from RUNTIME_IMAGE, which holds the C and
# C++ libraries the node binary links, CA certificates and nothing else (no shell, no package
# manager), and adds only the node binary of NODE_IMAGE (not npm), the production dependencies,
# the compiled dist/, paw's package.json and default settings. It runs as the unprivileged
# `node` user (uid 1000), listens on 8090 on all interfaces with authentication on (the
# dashboard, /api and /queues want a bearer token from /run/secrets/paw-ops-tokens: mount one,
# one token per line; without it paw refuses to start and says so) and reports its health to
# Docker through /healthz, which stays open.

# The Node that compiles paw and whose node binary runs it.
ARG NODE_IMAGE=node:22-bookworm-slim
# What that binary (a glibc build) runs on: glibc, libstdc++ and CA certificates, no shell.
# paw's time zones need no zoneinfo files: Node's own ICU carries the IANA zones.
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# No install scripts: compiling needs none, and none runs that nobody reviewed.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin/build.mjs bin/source-stamp.mjs ./bin/
COPY src ./src
# tsc, then the Redis scripts (src/**/*.lua) copied beside the JavaScript.
RUN npm run build

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# Type declarations, TypeScript sources, source maps and Markdown are there for editors and
# readers; Node loads none of them (paw runs without --enable-source-maps). They are a third of
# the dependencies' bytes.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
    -o -name '*.map' -o -name '*.md' \) -delete

# RUNTIME_IMAGE has no shell to add a user with: the runtime copies these. The `node` user is
# the official node image's (uid 1000, which the Kubernetes manifests name); rotated secrets are
# written under /var/lib/paw (mount a volume) and `paw sim` writes its credentials there.
FROM ${NODE_IMAGE} AS accounts
RUN mkdir -p /accounts/etc /accounts/home/node /accounts/var/lib/paw/secrets /accounts/var/lib/paw/sim \
  && printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
    'node:x:1000:1000:node:/home/node:/sbin/nologin' \
    'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' >/accounts/etc/passwd \
  && printf '%s\n' 'root:x:0:' 'node:x:1000:' 'nogroup:x:65534:' >/accounts/etc/group

FROM ${RUNTIME_IMAGE} AS runtime
COPY --from=accounts /accounts/etc/ /etc/
COPY --from=accounts --chown=node:node /accounts/home/node /home/node
COPY --from=accounts --chown=node:node /accounts/var/lib/paw /var/lib/paw
COPY --from=build /usr/local/bin/node /usr/local/bin/node
ENV PATH=/usr/local/bin:/usr/bin:/bin \
    NODE_ENV=production \
    PAW_HTTP_HOST=0.0.0.0 \
    PAW_HTTP_PORT=8090 \
    PAW_OPS_TOKEN_FILE=/run/secrets/paw-ops-tokens \
    PAW_JOBS_DIR=/app/jobs
WORKDIR /app
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# package.json: paw reads its version from it (dist/ is one level below, as src/ is).
COPY package.json ./
COPY config/paw.yaml ./config/paw.yaml
USER node
VOLUME ["/var/lib/paw/secrets"]
EXPOSE 8090
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PAW_HTTP_PORT || 8090) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]

# paw: the platform automation worker, as a container image.
#
#   docker build -t paw .
#   docker run --rm paw --help
#   docker run -d -e PAW_REDIS_URL=redis://redis:6379 -e PAW_CREDENTIALS_FILE=/run/secrets/paw.json \
#     -v ./secrets/paw-ops-tokens:/run/secrets/paw-ops-tokens:ro \
#     -v ./jobs:/app/jobs:ro -p 8090:8090 paw start
#
# Three stages: the compiler (all dependencies, tsc), the production dependencies alone, and a
# small runtime holding only those and the compiled dist/. It runs as the unprivileged `node`
# user, listens on 8090 on all interfaces with authentication on (the dashboard, /api and
# /queues want a bearer token from /run/secrets/paw-ops-tokens: mount one, one token per line;
# without it paw refuses to start and says so) and reports its health to Docker through
# /healthz, which stays open.

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# No install scripts: compiling needs none, and none runs that nobody reviewed.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
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
# Rotated secrets are written here (mount a volume); the jobs folder is usually mounted too.
RUN mkdir -p /var/lib/paw/secrets /var/lib/paw/sim && chown -R node:node /var/lib/paw
USER node
VOLUME ["/var/lib/paw/secrets"]
EXPOSE 8090
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PAW_HTTP_PORT || 8090) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["start"]

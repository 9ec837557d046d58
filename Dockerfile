# One image per service: `docker build --build-arg SERVICE=gateway -t dzpay/gateway .`
# Node strips the TypeScript types at run time, so the image carries the sources and
# the production dependencies only: there is no build output to copy.
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS deps
# The same pnpm as the root package.json's "packageManager": another version could
# read the lockfile differently.
RUN npm install --global pnpm@10.34.9 && npm cache clean --force
# Only the lockfile decides what is downloaded, so a source change reuses this layer.
# The download goes to the store alone: a virtual store filled here would keep every
# service's packages in the image, whatever the install below selects.
WORKDIR /fetch
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
# The lockfile names patched packages by their patch (patches/: postgres.js, nats-core).
COPY patches ./patches
RUN pnpm fetch --prod --store-dir /pnpm-store && rm -rf /fetch

FROM deps AS build
ARG SERVICE
WORKDIR /app
COPY . .
RUN if [ -z "${SERVICE}" ] || [ ! -f "services/${SERVICE}/src/main.ts" ]; then \
      echo "build with --build-arg SERVICE=<name>, a folder of services/ with src/main.ts" >&2; \
      exit 1; \
    fi
# --filter-prod follows dependencies but not devDependencies, so the image gets this
# service and the workspace libraries it runs on, and nothing of the other services
# or of libs/testkit. Workspace libraries stay symlinks into libs/ rather than copies
# (pnpm deploy) because Node does not strip types of files under node_modules.
RUN pnpm install --offline --frozen-lockfile --prod --store-dir /pnpm-store \
      --filter-prod "{./services/${SERVICE}}..."

FROM ${NODE_IMAGE}
ARG SERVICE
ENV NODE_ENV=production \
    SERVICE=${SERVICE}
WORKDIR /app
# Owned by root and only readable by the service's user: a compromised process cannot
# rewrite the code it runs.
COPY --from=build /app ./
# Numeric, so Kubernetes' runAsNonRoot can check it without reading /etc/passwd.
USER 1000:1000
# The services drain on SIGTERM (stop intake, finish work, close connections).
STOPSIGNAL SIGTERM
# exec replaces the shell, so node is PID 1 and receives the SIGTERM itself.
CMD exec node "services/${SERVICE}/src/main.ts"

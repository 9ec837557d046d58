# One image per workspace app, a folder with src/main.ts, chosen with a build argument:
#   docker build --build-arg APP=services/gateway -t dzpay/gateway .
#   docker build --build-arg APP=tools/admin-cli -t dzpay/admin-cli .
# SERVICE=<name> is short for APP=services/<name>.
# Node strips the TypeScript types at run time, so the image carries the sources and
# the production dependencies only: there is no build output to copy.
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS deps
# The same pnpm as the root package.json's "packageManager": another version could
# read the lockfile differently.
RUN npm install --global pnpm@10.34.9 && npm cache clean --force
# Only the lockfile decides what is downloaded, so a source change reuses this layer.
# The download goes to the store alone: a virtual store filled here would keep every
# app's packages in the image, whatever the install below selects.
WORKDIR /fetch
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
# The lockfile names patched packages by their patch (patches/: postgres.js, nats-core).
COPY patches ./patches
RUN pnpm fetch --prod --store-dir /pnpm-store && rm -rf /fetch

FROM deps AS build
ARG APP
ARG SERVICE
WORKDIR /app
# The whole tree (less .dockerignore), not the app's folder alone: every image carries
# every services/*/migrations folder and libs/accounts/migrations, which libs/stack finds
# by convention, for the admin CLI's `migrate` and for the services working in a schema
# a library holds (the gateway and the dashboard apply the accounts migrations).
COPY . .
# --filter-prod follows dependencies but not devDependencies, so the image gets this
# app and the workspace libraries it runs on, and nothing of the other apps' packages
# or of libs/testkit. Workspace libraries stay symlinks into libs/ rather than copies
# (pnpm deploy) because Node does not strip types of files under node_modules.
RUN app="${APP:-services/${SERVICE}}"; \
    if [ -z "${APP}${SERVICE}" ] || [ ! -f "${app}/src/main.ts" ]; then \
      echo "build with --build-arg APP=<folder with src/main.ts> (services/gateway, tools/admin-cli) or SERVICE=<a folder of services/>" >&2; \
      exit 1; \
    fi; \
    pnpm install --offline --frozen-lockfile --prod --store-dir /pnpm-store \
      --filter-prod "{./${app}}..."

FROM ${NODE_IMAGE}
ARG APP
ARG SERVICE
ENV NODE_ENV=production \
    APP=${APP} \
    SERVICE=${SERVICE}
WORKDIR /app
# Owned by root and only readable by the app's user: a compromised process cannot
# rewrite the code it runs.
COPY --from=build /app ./
# Numeric, so Kubernetes' runAsNonRoot can check it without reading /etc/passwd.
USER 1000:1000
# The services drain on SIGTERM (stop intake, finish work, close connections).
STOPSIGNAL SIGTERM
# exec replaces the shell, so node is PID 1 and receives the SIGTERM itself. The admin
# CLI's image prints its commands; the migration Job names one (deploy/base/migrate-job.yaml).
CMD exec node "${APP:-services/${SERVICE}}/src/main.ts"

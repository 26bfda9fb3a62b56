# The gateway's image: docs/deployment.md says how to build and run it. In short:
#   docker build --format docker ... (podman) or docker build ..., with
#     --build-arg VERSION=$(node -p "require('./package.json').version") --build-arg REVISION=$(git rev-parse HEAD)
#     --build-arg NPM_REGISTRY=$(npm config get registry)       (optional: a registry other than npm's default)
#     --secret id=extra_ca,src=/path/to/extra-ca.pem            (optional: an intercepting proxy's certificate authority)
# scripts/deploy/build-image.sh passes all of these.
ARG NODE_IMAGE=node:20-bookworm-slim

# Stage 1: every dependency, the build (TypeScript to dist/, GraphiQL compressed once), then the dev dependencies pruned.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ARG NPM_REGISTRY=
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here, and no dependency needs an install script.
# The certificate authority is mounted for this step only, and never stored in a layer.
RUN --mount=type=secret,id=extra_ca,target=/run/secrets/extra_ca \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    if [ -n "$NPM_REGISTRY" ]; then export npm_config_registry="$NPM_REGISTRY"; fi; \
    npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error \
 && rm -rf dist/.tsbuildinfo

# Stage 2: Node, tini, the production dependencies and the build; nothing else.
FROM ${NODE_IMAGE}
# tini as PID 1 hands SIGTERM and SIGINT to the gateway, which drains (/ready 503, then exit 0), and kills it at once
# for a signal that comes before its handlers are set, where PID 1 itself would ignore it.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tini >/dev/null \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
WORKDIR /app
# Owned by root and read-only to the gateway's user: the running gateway cannot change its own code.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.title="company-search-gateway" \
      org.opencontainers.image.description="GraphQL gateway in front of the REST Company Lookup Service" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# All interfaces, as a container's port is reached from outside it. Without UPSTREAM_URL the gateway runs on the
# embedded lookup service, as `npm start` does; NODE_ENV is the operator's to set (production in deploy/).
ENV HOST=0.0.0.0 \
    PORT=4000 \
    TMPDIR=/tmp
EXPOSE 4000
# The user `node` of the base image, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
# The check starts a node process: on a busy host that alone can take seconds, so the timeout leaves room for it.
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--enable-source-maps", "dist/main.js"]

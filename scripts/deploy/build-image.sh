#!/bin/sh
# Builds the gateway's image from the Dockerfile at the top of the repository, with podman, as CI and the deploy
# tests do: the version from package.json and the source revision from git as labels; npm's registry as this machine
# sets it; the certificate authorities this machine trusts as the optional build secret (for a proxy that intercepts
# HTTPS: EXTRA_CA=/path/to/ca.pem to choose another file, EXTRA_CA= for none). Docker format, as podman's default
# (OCI) drops HEALTHCHECK. Prints nothing but podman's errors; IMAGE names the result.
#   IMAGE=localhost/company-search-gateway:dev sh scripts/deploy/build-image.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
root=$(cd "$here/../.." && pwd)

version=$(node -p "require('$root/package.json').version")
revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
# A tree with changes not committed is not that revision.
if [ "$revision" != unknown ] && [ -n "$(git -C "$root" status --porcelain -- Dockerfile package.json package-lock.json tsconfig.json tsconfig.build.json src 2>/dev/null)" ]; then
  revision="$revision-dirty"
fi
image=${IMAGE:-localhost/company-search-gateway:$version}
default_ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
extra_ca=${EXTRA_CA-$default_ca}

# The labels are also given as --label: buildah's layer cache reuses a LABEL step whose build arguments changed.
set -- --format docker --layers \
  --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  --label "org.opencontainers.image.version=$version" --label "org.opencontainers.image.revision=$revision" \
  --build-arg "NPM_REGISTRY=$(npm config get registry)" \
  -t "$image" -f "$root/Dockerfile"
if [ -n "$extra_ca" ] && [ -f "$extra_ca" ]; then set -- "$@" --secret "id=extra_ca,src=$extra_ca"; fi
podman build --quiet "$@" "$root" >/dev/null

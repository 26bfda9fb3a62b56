#!/bin/sh
# Installs what the image build and the deploy tests need and the machine lacks; does nothing when all is there.
# podman, buildah and runc build and run the images; catatonit is the pause process of `podman kube play`; the dnsname
# plugin lets compose services find one another by name; podman-compose runs deploy/compose/compose.yaml; mmdebstrap
# makes the Debian base images where no container registry is reachable (scripts/deploy/base-images.sh).
set -eu

missing=''
for pair in podman:podman buildah:buildah runc:runc catatonit:catatonit podman-compose:podman-compose mmdebstrap:mmdebstrap; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
[ -x /usr/lib/cni/dnsname ] || missing="$missing golang-github-containernetworking-plugin-dnsname"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "Building and testing the images needs these Debian packages:$missing. Install them as root: apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
echo "Installing Debian packages the image build and deploy tests need:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # one word per package
apt-get install -y -qq --no-install-recommends $missing >/dev/null

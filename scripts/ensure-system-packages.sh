#!/bin/sh
# Installs the Debian packages the tests need and the machine lacks; does nothing when they are all there.
# Run by `npm test` (pretest). chromium: the browser test of GraphiQL drives Debian's build through playwright-core,
# since no browser download can be fetched here. redis-server: the shared-state tests start Redis themselves.
# prometheus: its promtool checks the gateway's /metrics exposition and the alert rules, and the dashboard's test runs
# Prometheus itself against a fleet (test/monitoring/). varnish and varnish-modules (its xkey purges by tag): the HTTP
# caching tests put Varnish in front of a gateway.
set -eu

missing=''
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v promtool >/dev/null 2>&1 || missing="$missing prometheus"
command -v varnishd >/dev/null 2>&1 || missing="$missing varnish"
ls /usr/lib/*/varnish/vmods/libvmod_xkey.so >/dev/null 2>&1 || missing="$missing varnish-modules"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need these Debian packages:$missing. Install them as root: apt-get install -y$missing" >&2
  exit 1
fi
echo "Installing Debian packages the tests need:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # one word per package
apt-get install -y -qq --no-install-recommends $missing >/dev/null

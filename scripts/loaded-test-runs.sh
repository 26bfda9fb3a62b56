#!/usr/bin/env bash
# The whole `npm test`, RUNS times in a row (default 3), on a fresh clone of REPO (default: this checkout's
# committed HEAD) with two `yes > /dev/null` loops holding both cores: the suite must pass on a machine as busy
# as a CI runner or a production host. Prints each run's exit code, seconds and the load average; logs in OUT.
#
#   bash scripts/loaded-test-runs.sh [REPO] [RUNS] [OUT]
set -u
repo=${1:-$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)}
runs=${2:-3}
out=${3:-$(mktemp -d)}
clone=$(mktemp -d)
git clone -q "$repo" "$clone" && cd "$clone" || exit 1
echo "clone of $(git log --oneline -1) in $clone; logs in $out"
npm ci --no-audit --no-fund > "$out/npm-ci.log" 2>&1 || { echo "npm ci failed: $out/npm-ci.log"; exit 1; }
yes > /dev/null & busy1=$!
yes > /dev/null & busy2=$!
trap 'kill $busy1 $busy2 2>/dev/null' EXIT
failed=0
for run in $(seq 1 "$runs"); do
  started=$SECONDS
  npm test > "$out/run$run.log" 2>&1
  code=$?
  [ "$code" -eq 0 ] || failed=1
  echo "run $run: exit $code in $((SECONDS - started)) s; $(uptime | sed 's/.*load/load/')"
done
exit "$failed"

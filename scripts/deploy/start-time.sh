#!/bin/sh
# Measures the image's start time to ready: from `podman start` until /ready answers 200 (asked every 50 ms), RUNS
# times (default 5), read-only with no capability as in deploy/. Prints one time per run and the median.
#   IMAGE=localhost/company-search-gateway:0.2.0 sh scripts/deploy/start-time.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
image=${IMAGE:-localhost/company-search-gateway:$(node -p "require('$here/../../package.json').version")}
runs=${RUNS:-5}
name=csg-start-time-$$
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
podman create --quiet --name "$name" --read-only --read-only-tmpfs=false --tmpfs /tmp --cap-drop=ALL \
  -p "127.0.0.1:$port:4000" "$image" >/dev/null
trap 'podman rm -f -t 0 "$name" >/dev/null 2>&1' EXIT
times=''
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  start=$(date +%s%N)
  podman start "$name" >/dev/null 2>&1
  until curl -fs -o /dev/null "http://127.0.0.1:$port/ready"; do sleep 0.05; done
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "run $i: ${ms} ms"
  times="$times $ms"
  podman stop -t 20 "$name" >/dev/null 2>&1
done
echo "median: $(echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n | sed -n "$(( (runs + 1) / 2 ))p") ms"

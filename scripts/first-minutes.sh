#!/usr/bin/env bash
# The first minutes of a new user, timed: on a fresh clone, `npm ci` (wall seconds), then N starts of `npm start` to
# its ready line (wall seconds from spawn to the line naming the GraphQL address; each stopped by SIGTERM), with the
# machine's load before and after, since both figures depend on it.
#
#   scripts/first-minutes.sh [REPOSITORY] [STARTS]
#
# REPOSITORY: what to clone, a path or URL (default: this repository, its committed HEAD); STARTS: default 5.
# npm's own cache is used as it is: a machine that never installed these packages downloads them too.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
repository=${1:-$here}
starts=${2:-5}
case $starts in '' | *[!0-9]* | 0)
  echo "STARTS must be a positive integer, got '$starts'" >&2
  exit 2
  ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/first-minutes.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "first minutes of $repository, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, node $(node --version), npm $(npm --version)"
echo "load before: $(uptime)"
git clone --quiet "$repository" "$work/clone"
cd "$work/clone"
echo "commit: $(git rev-parse --short HEAD)"

seconds_since() { echo "$(($(date +%s%N) - $1))" | awk '{ printf "%.2f", $1 / 1e9 }'; }

began=$(date +%s%N)
npm ci --no-audit --no-fund >"$work/npm-ci.log" 2>&1 || {
  tail -n 30 "$work/npm-ci.log" >&2
  echo "npm ci failed" >&2
  exit 1
}
echo "npm ci: $(seconds_since "$began") s"

# One start, timed by node: spawns `npm start` as a person types it (PORT=0: a port of its own, whatever else runs
# here), reads its output as it comes, and stops it by SIGTERM once the ready line is there. Prints the seconds.
time_start() {
  PORT=0 node --input-type=module -e '
    import { spawn } from "node:child_process";
    const began = performance.now();
    const npm = spawn("npm", ["start"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const look = (chunk) => {
      output += chunk;
      if (!/Gateway ready/.test(output) || npm.killed) return;
      process.stdout.write(((performance.now() - began) / 1000).toFixed(2));
      npm.kill("SIGTERM");
    };
    npm.stdout.setEncoding("utf8").on("data", look);
    npm.stderr.setEncoding("utf8").on("data", look);
    npm.on("close", (code, signal) => {
      if (!npm.killed) {
        process.stderr.write(`npm start ended before its ready line (code ${code}, signal ${signal}):\n${output}`);
        process.exit(1);
      }
    });
  '
}

times=()
for ((i = 1; i <= starts; i++)); do
  times+=("$(time_start)")
done
echo "npm start to ready, $starts starts: ${times[*]} s"
printf '%s\n' "${times[@]}" | sort -n | awk '
  { t[NR] = $1 }
  END {
    median = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
    printf "npm start to ready: median %.2f s, range %.2f-%.2f s\n", median, t[1], t[NR]
  }'
echo "load after: $(uptime)"

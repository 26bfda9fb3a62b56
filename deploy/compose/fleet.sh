#!/bin/sh
# Runs the fleet of compose.yaml (docs/deployment.md, A fleet on one machine) with podman-compose or docker compose,
# and does what podman-compose 1.0 leaves undone: it passes the stop timeout (compose.yaml's stop_grace_period, which
# podman-compose ignores) to every stop and restart, and `down` removes the project's network.
#
#   sh deploy/compose/fleet.sh [--sentinel] [-f EXTRA.yaml]... COMMAND
#     secrets            make the secret files (FLEET_SECRETS, default deploy/compose/secrets/) that are missing:
#                        random values, readable by the containers' users, in a folder only the owner can enter
#     up [ARGS]          the secrets, then `up -d ARGS` (ARGS: services, --no-build…)
#     roll               each gateway in turn: stopped with the stop timeout, made again from the compose files and
#                        GATEWAY_IMAGE (a new version, a changed setting), then the next once haproxy has it UP
#     down               stops (with the stop timeout) and removes the containers, the network and Prometheus' data
#     COMMAND [ARGS]     any other compose command (ps, logs, restart…) with the same files and project
#   --sentinel           adds compose.sentinel.yaml: Redis Sentinel (a master, two replicas, three sentinels)
#
# Environment: FLEET_PROJECT (the compose project, default company-search-fleet), FLEET_COMPOSE (the compose command,
# default podman-compose where installed, else docker compose), FLEET_SECRETS, and compose.yaml's own (GATEWAY_IMAGE,
# FLEET_PORT, FLEET_STATS_PORT, FLEET_PROMETHEUS_PORT).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
project=${FLEET_PROJECT:-company-search-fleet}
FLEET_SECRETS=${FLEET_SECRETS:-$here/secrets}
export FLEET_SECRETS
if [ -z "${FLEET_COMPOSE:-}" ]; then
  if command -v podman-compose >/dev/null 2>&1; then FLEET_COMPOSE=podman-compose; else FLEET_COMPOSE='docker compose'; fi
fi
# Podman's settings for the machines this project is built on, unless the operator has their own.
if [ "$FLEET_COMPOSE" = podman-compose ]; then
  CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$here/../../scripts/deploy" && pwd)/containers.conf}
  export CONTAINERS_CONF
fi

files="-f $here/compose.yaml"
while [ $# -gt 0 ]; do
  case $1 in
    --sentinel) files="$files -f $here/compose.sentinel.yaml"; shift ;;
    -f) files="$files -f $2"; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { sed -n '6,17p' "$0" >&2; exit 2; }
command=$1
shift

# The stop timeout, from compose.yaml: the gateways' drain delay, the requests in flight, a margin.
grace=$(sed -n 's/^ *stop_grace_period: *\([0-9]*\)s *$/\1/p' "$here/compose.yaml" | head -n 1)

compose() {
  # shellcheck disable=SC2086 # $FLEET_COMPOSE and $files are word lists
  $FLEET_COMPOSE -p "$project" $files "$@"
}

random_hex() {
  od -An -N32 -tx1 /dev/urandom | tr -d ' \n'
}

# Writes $2 to the file $1 of the secrets folder unless it is there already.
secret_file() {
  [ -s "$FLEET_SECRETS/$1" ] && return 0
  printf '%s\n' "$2" >"$FLEET_SECRETS/$1"
  # The containers' users (999 for Redis, 1000 for the gateways) read the file through its bind mount; the folder
  # (0700) keeps the other users of this machine out.
  chmod 0644 "$FLEET_SECRETS/$1"
  echo "Made $FLEET_SECRETS/$1"
}

# An ACL line for a user with the password $2, as Redis reads it: only the password's SHA-256 is stored.
acl_password() {
  printf '#%s' "$(printf '%s' "$1" | sha256sum | cut -c1-64)"
}

# The Redis files go together (the passwords in the URLs are those of the ACL file): all made again when one is missing.
REDIS_FILES='redis-users.acl redis-url redis-sentinel-url redis-sentinel-password redis-replica.conf sentinel.conf'

make_secrets() {
  mkdir -p "$FLEET_SECRETS"
  chmod 0700 "$FLEET_SECRETS"
  secret_file upstream-client-secret "$(random_hex)"
  for file in $REDIS_FILES; do
    [ -s "$FLEET_SECRETS/$file" ] && continue
    (cd "$FLEET_SECRETS" && rm -f $REDIS_FILES)
    gateway=$(random_hex)
    replica=$(random_hex)
    sentinel_user=$(random_hex)
    sentinels=$(random_hex)
    # default: off. gateway: the prefix and the commands the gateway uses (redis-gateway.acl; docs/operations.md,
    # Running Redis safely). replica and sentinel: what replication and Sentinel need of the master
    # (compose.sentinel.yaml).
    secret_file redis-users.acl "user default off
user gateway on $(acl_password "$gateway") $(grep -v "^#" "$here/redis-gateway.acl")
user replica on $(acl_password "$replica") resetchannels -@all +psync +replconf +ping
user sentinel on $(acl_password "$sentinel_user") allchannels -@all +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill"
    secret_file redis-url "redis://gateway:$gateway@redis:6379/0"
    secret_file redis-sentinel-url "redis-sentinel://gateway:$gateway@sentinel-1:26379,sentinel-2:26379,sentinel-3:26379/fleet"
    secret_file redis-sentinel-password "$sentinels"
    secret_file redis-replica.conf "masteruser replica
masterauth $replica"
    # The sentinels: their own password (for the gateways and one another), the master by its service name, and how
    # they log in to the Redis nodes; a master unanswered for 5 s is failed over.
    secret_file sentinel.conf "port 26379
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
requirepass $sentinels
sentinel sentinel-pass $sentinels
sentinel monitor fleet redis 6379 2
sentinel auth-user fleet sentinel
sentinel auth-pass fleet $sentinel_user
sentinel down-after-milliseconds fleet 5000
sentinel failover-timeout fleet 30000"
    break
  done
}

# haproxy's status of a gateway (UP, DOWN, MAINT…), from its statistics page on the host.
balancer_status() {
  curl -fsS "http://127.0.0.1:${FLEET_STATS_PORT:-8404}/stats;csv" 2>/dev/null | awk -F, -v server="$1" '$1 == "gateways" && $2 == server { print $18 }'
}

case $command in
  secrets)
    make_secrets
    ;;
  up)
    make_secrets
    compose up -d "$@"
    ;;
  roll)
    for gateway in gateway-1 gateway-2 gateway-3; do
      if [ "$FLEET_COMPOSE" = podman-compose ]; then
        # podman-compose 1.0 makes no container again while one of the name is there: stop, say how it left, remove.
        container="${project}_${gateway}_1"
        compose stop -t "$grace" "$gateway"
        echo "$gateway stopped, exit code $(podman inspect --format '{{.State.ExitCode}}' "$container")"
        podman rm "$container" >/dev/null
        compose up -d --no-deps --no-build "$gateway"
      else
        compose up -d --no-deps --force-recreate --timeout "$grace" "$gateway"
      fi
      waited=0
      until [ "$(balancer_status "$gateway")" = UP ]; do
        waited=$((waited + 1))
        if [ "$waited" -gt 240 ]; then
          echo "$gateway is not UP in haproxy 2 minutes after it was made again: stopping here (fleet.sh logs $gateway)" >&2
          exit 1
        fi
        sleep 0.5
      done
      echo "$gateway UP again"
    done
    ;;
  down)
    # -v: Prometheus' volume too; nothing else keeps data.
    compose down -v -t "$grace" "$@"
    if [ "$FLEET_COMPOSE" = podman-compose ]; then
      for network in $(podman network ls --quiet --filter "label=io.podman.compose.project=$project"); do
        podman network rm "$network" >/dev/null
      done
    fi
    ;;
  *)
    compose "$command" "$@"
    ;;
esac

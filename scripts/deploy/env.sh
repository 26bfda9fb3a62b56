# Sourced by the container scripts: podman's settings for these machines (see containers.conf beside this file).
# An operator's own CONTAINERS_CONF is kept.
CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "$0")" && pwd)/containers.conf}
export CONTAINERS_CONF

#!/bin/sh
# The stand-in redis image's entrypoint (scripts/deploy/base/redis.Containerfile), doing what the official image's
# does: options or a .conf file alone mean redis-server; started as root, it gives /data to redis and runs itself
# again as redis through gosu (which needs CAP_SETUID and CAP_SETGID, and fails without them).
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  find . \! -user redis -exec chown redis '{}' +
  exec gosu redis "$0" "$@"
fi
# The official image's umask for the files Redis writes.
if [ "$(umask)" = 0022 ]; then umask 0077; fi
exec "$@"

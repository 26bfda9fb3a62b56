#!/bin/sh
# Reads npm ci's output on stdin and fails, naming them, when npm warned that dependencies do not support this Node
# (EBADENGINE). The fix is an override in package.json pinning a version that does (docs/architecture.md, "Node versions and dependencies").
# Allowed: listr2 10, which @graphql-codegen/cli 7 asks for at ^10.2.1 and of which no such release declares Node 20.
set -eu

unsupported=$(grep -A1 'EBADENGINE Unsupported engine' | grep -o "package: '[^']*'" | sed "s/^package: //" | grep -v "^'listr2@10\." | sort -u || true)
if [ -n "$unsupported" ]; then
  echo "npm ci warned that these dependencies do not support Node $(node -v) (EBADENGINE):" >&2
  echo "$unsupported" >&2
  echo "Pin versions that do, through overrides in package.json (docs/architecture.md, Node versions and dependencies)." >&2
  exit 1
fi

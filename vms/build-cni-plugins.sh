#!/bin/bash
# Build the CNI reference plugins Nomad's bridge mode uses (bridge, host-local, loopback, firewall, portmap)
# at a given version from the Go module proxy, with their version string set: Nomad fingerprints
# `plugins.cni.version.<plugin>` by running each plugin with no arguments, and Debian's 1.1.1 package
# prints "version unknown", so Nomad cannot place bridge-mode jobs with it.
#
#   build-cni-plugins.sh [OUT_DIR] [VERSION]     (defaults: ~/.cache/nomad-reboot-harness/cni-plugins-<ver>, v1.6.2)
#
# Cached: an OUT_DIR whose plugins already report VERSION is left alone. Needs Go >= 1.21.
set -euo pipefail
VERSION=${2:-${CNI_PLUGINS_VERSION:-v1.6.2}}
OUT=${1:-${HOME:-/root}/.cache/nomad-reboot-harness/cni-plugins-$VERSION}
PLUGINS="main/bridge ipam/host-local main/loopback meta/firewall meta/portmap"
MOD=github.com/containernetworking/plugins

if [ -x "$OUT/bridge" ] && "$OUT/bridge" 2>&1 | grep -q "CNI bridge plugin $VERSION\$"; then
  echo "CNI plugins $VERSION present in $OUT"; exit 0
fi
GO=$(command -v go || true); [ -n "$GO" ] || GO=/usr/local/go/bin/go
[ -x "$GO" ] || { echo "build-cni-plugins.sh: Go is needed to build the CNI plugins (install Go >= 1.21, e.g. apt-get install golang-1.21 from bookworm-backports)" >&2; exit 1; }
mkdir -p "$OUT"
t0=$(date +%s)
for p in $PLUGINS; do
  CGO_ENABLED=0 GOBIN="$OUT" GOFLAGS=-trimpath "$GO" install \
    -ldflags "-s -w -X $MOD/pkg/utils/buildversion.BuildVersion=$VERSION" "$MOD/plugins/$p@$VERSION"
done
"$OUT/bridge" 2>&1 | head -1
echo "CNI plugins $VERSION built into $OUT in $(( $(date +%s) - t0 )) s"

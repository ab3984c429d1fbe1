#!/bin/sh
# Run the REAL CNI bridge + host-local plugins the way Nomad's bridge mode does, without Nomad
# (scenario cni-ipam-reboot; lib/cni builds the calls and parses the output).
#
#   cni-probe.sh add   <container-id> <netns>   network config JSON on stdin; creates the netns if missing
#   cni-probe.sh del   <container-id> <netns>   network config JSON on stdin
#   cni-probe.sh reset <netns> <state-dir>...   delete the netns, the state dirs and the "nomad" bridge
#
# add/del print one line: CNI-PROBE rc=<plugin exit code> stdout=<base64> stderr=<base64>
# and exit 0 once the plugin ran (its verdict is in rc); other exit codes are the script's own errors.
# Env: NRH_CNI_PATH (default /usr/lib/cni, Debian's containernetworking-plugins), NRH_CNI_PLUGIN (bridge).
set -eu
CNI_DIR=${NRH_CNI_PATH:-/usr/lib/cni}
PLUGIN=${NRH_CNI_PLUGIN:-bridge}
b64() { base64 -w0 < "$1"; }
die() { echo "cni-probe: $*" >&2; exit 2; }

cmd=${1:-}; [ $# -ge 1 ] && shift
case "$cmd" in
  add|del)
    [ $# -eq 2 ] || die "usage: $cmd <container-id> <netns>"
    id=$1 ns=$2
    [ -x "$CNI_DIR/$PLUGIN" ] || die "$CNI_DIR/$PLUGIN not found (containernetworking-plugins)"
    if [ "$cmd" = add ] && [ ! -e "/var/run/netns/$ns" ]; then ip netns add "$ns"; fi
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    cat > "$tmp/conf"
    rc=0
    CNI_COMMAND=$(echo "$cmd" | tr a-z A-Z) CNI_CONTAINERID="$id" CNI_NETNS="/var/run/netns/$ns" \
      CNI_IFNAME=eth0 CNI_PATH="$CNI_DIR" CNI_ARGS="IgnoreUnknown=true;NOMAD_ALLOC_ID=$id" \
      "$CNI_DIR/$PLUGIN" < "$tmp/conf" > "$tmp/out" 2> "$tmp/err" || rc=$?
    echo "CNI-PROBE rc=$rc stdout=$(b64 "$tmp/out") stderr=$(b64 "$tmp/err")"
    ;;
  reset)
    [ $# -ge 1 ] || die "usage: reset <netns> <state-dir>..."
    ns=$1; shift
    if [ -e "/var/run/netns/$ns" ]; then ip netns del "$ns"; fi
    for d in "$@"; do rm -rf -- "$d"; done
    if ip link show nomad >/dev/null 2>&1; then ip link del nomad; fi
    echo "CNI-PROBE reset ok"
    ;;
  *) die "usage: cni-probe.sh add|del <container-id> <netns> | reset <netns> <state-dir>..." ;;
esac

#!/bin/bash
# Install what the VM lab needs on a Debian/Ubuntu host (root), then build the box.
# Idempotent: packages already installed are skipped, and the box build is skipped when the
# box with the current recipe hash is already added (vms/build-box.sh).
#
#   setup-host.sh [--no-box] [--force-box] [--docker-box]
#
# --docker-box also builds the Docker box (vms/build-box.sh --docker) for `--driver docker`.
#
# Used by `reboot-harness setup` and by .ci/run. Starting libvirtd inside the lab network
# namespace is not done here: the harness does it (lib/lab/host.ts ensureLabHost).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive VAGRANT_CHECKPOINT_DISABLE=1
BOX=1; BOX_ARGS=(); DOCKER_BOX=0
for a in "$@"; do
  case "$a" in
    --no-box) BOX=0 ;;
    --force-box) BOX_ARGS+=(--force) ;;
    --docker-box) DOCKER_BOX=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "setup-host.sh: unknown argument: $a (expected --no-box, --force-box, --docker-box)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "setup-host.sh: must run as root" >&2; exit 1; }
command -v apt-get >/dev/null || { echo "setup-host.sh: needs apt-get (Debian/Ubuntu); install vagrant, vagrant-libvirt, libvirt, qemu, debootstrap by hand" >&2; exit 1; }

# qemu + libvirt + vagrant-libvirt run the VMs; debootstrap/qemu-utils/e2fsprogs build the box offline;
# dnsmasq-base serves DHCP on libvirt's management network; iproute2 for the network namespace;
# containernetworking-plugins for the host-local integration test; libxml2-utils for xmllint (report tests);
# openssh-server for the SSH integration tests (a real sshd on 127.0.0.1); chromium renders the HTML report in tests;
# busybox-static: the docker variant's image script is tested on the host with the static busybox it copies.
# The box build also needs Go >= 1.21 (vms/build-cni-plugins.sh); it is not a Debian bookworm package at that version.
# fonts-liberation: Chromium renders the report's text with it (Recommends are off, see below).
PKGS=(qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-clients vagrant vagrant-libvirt
      debootstrap dnsmasq-base iptables iproute2 openssh-client e2fsprogs kmod
      containernetworking-plugins libxml2-utils ca-certificates chromium openssh-server busybox-static
      fonts-liberation gpgv)

# Every prerequisite before anything slow: the box build needs Go >= 1.21 (vms/build-cni-plugins.sh).
if [ "$BOX" = 1 ]; then
  GO=$(command -v go || true); [ -n "$GO" ] || GO=/usr/local/go/bin/go
  gov=$("$GO" env GOVERSION 2>/dev/null | sed 's/^go//') || gov=""
  if [ -z "$gov" ] || [ "$(printf '%s\n1.21\n' "${gov%%[!0-9.]*}" | sort -V | head -1)" != 1.21 ]; then
    echo "setup-host.sh: the box build needs Go >= 1.21 (found: ${gov:-none}); install it (https://go.dev/dl or golang-1.21 from bookworm-backports) or pass --no-box" >&2
    exit 2
  fi
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-host: installing ${missing[*]}"
  s=$(date +%s)
  apt-get update -q
  # Without Recommends: they pull a host kernel, a mail server, NFS and libguestfs, none of which the lab uses.
  apt-get install -y -q --no-install-recommends "${missing[@]}"
  echo "setup-host: apt took $(( $(date +%s) - s )) s"
else
  echo "setup-host: all ${#PKGS[@]} packages present"
fi
vagrant plugin list 2>/dev/null | grep -q '^vagrant-libvirt' || { echo "setup-host: vagrant does not see the vagrant-libvirt plugin" >&2; exit 1; }

if [ "$BOX" = 1 ]; then
  bash "$HERE/build-box.sh" "${BOX_ARGS[@]}"
  if [ "$DOCKER_BOX" = 1 ]; then bash "$HERE/build-box.sh" --docker "${BOX_ARGS[@]}"; fi
fi
echo "setup-host: done"

#!/bin/bash
# Build the offline Debian bookworm Vagrant box "nomad-reboot-harness/bookworm" for libvirt;
# with --docker, "nomad-reboot-harness/bookworm-docker": the same plus Debian's docker.io and a static
# busybox (the docker variant of the reboot scenario builds its image from it inside the VM).
#
# Only the Debian mirror apt already uses is contacted (debootstrap). The box boots by DIRECT
# KERNEL BOOT: vmlinuz + initrd.img ship inside the box and the box's own Vagrantfile copies
# them to /var/lib/libvirt/boot/ (qemu runs as libvirt-qemu and cannot read root's ~/.vagrant.d).
#
# Cached: the box carries recipe.sha256 (this script + package list + disk size). When the box
# with that hash is already added, the build is skipped. `--force` rebuilds anyway;
# `--check` only tells (exit 0 = current box present, 1 = build needed); `--print-hash` prints it.
# `--docker` selects the Docker box (its own name, work folder and recipe hash).
#
# Needs (root): debootstrap, qemu-utils (qemu-img), e2fsprogs (mkfs.ext4 -d), vagrant.
# Env: BOX_NAME, DISK_GB (8), MIRROR (default: apt's bookworm mirror), WORK (build folder).
set -euo pipefail
export VAGRANT_CHECKPOINT_DISABLE=1 LC_ALL=C

DOCKER=0
for a in "$@"; do [ "$a" = --docker ] && DOCKER=1; done
if [ "$DOCKER" = 1 ]; then
  BOX_NAME=${BOX_NAME:-nomad-reboot-harness/bookworm-docker}
  WORK=${WORK:-/var/tmp/nomad-reboot-harness-box-docker}
else
  BOX_NAME=${BOX_NAME:-nomad-reboot-harness/bookworm}
  WORK=${WORK:-/var/tmp/nomad-reboot-harness-box}
fi
DISK_GB=${DISK_GB:-8}   # ext4 size, sparse: the qcow2 stores only used blocks (~260 MiB)
VAGRANT_HOME=${VAGRANT_HOME:-$HOME/.vagrant.d}
# Guest packages. Recipe base + what Nomad (exec driver, bridge networking) and our checks use:
# iptables/kmod (bridge + br_netfilter + nat), containernetworking-plugins (/usr/lib/cni: bridge,
# host-local, loopback, firewall, portmap), curl/python3 (HTTP probes and the test job), busybox
# (tiny httpd for jobs), ca-certificates, procps (Vagrant checks `ps -o comm= 1`), iputils-ping.
PKGS=linux-image-amd64,systemd-sysv,openssh-server,sudo,iproute2,iptables,curl,ca-certificates,python3,containernetworking-plugins,dbus,procps,iputils-ping,less,netbase,kmod,udev,busybox
# Docker box: Debian's docker.io (dockerd restarts Nomad's pause containers at boot: the GH-24292 path),
# apparmor (Debian's kernel enables AppArmor, and dockerd then refuses to create containers without
# apparmor_parser to load its docker-default profile: seen on the first real run), and busybox-static instead
# of busybox (a static binary is a whole image: no registry is reachable from the lab).
if [ "$DOCKER" = 1 ]; then PKGS=${PKGS%,busybox},busybox-static,docker.io,apparmor; fi
# Kernel modules Nomad bridge networking loads at run time (checked in the root fs below).
NEED_MODULES="bridge br_netfilter veth nf_nat nf_conntrack nf_tables nft_compat nft_chain_nat ip_tables iptable_nat iptable_filter xt_MASQUERADE xt_comment xt_mark xt_addrtype xt_multiport xt_conntrack"

FORCE=0; MODE=build
for a in "$@"; do
  case "$a" in
    --force) FORCE=1 ;;
    --docker) ;;
    --check) MODE=check ;;
    --print-hash) MODE=hash ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "build-box.sh: unknown argument: $a (expected --docker, --force, --check, --print-hash)" >&2; exit 2 ;;
  esac
done

# Versioned CNI reference plugins for Nomad (vms/build-cni-plugins.sh), installed as /opt/cni/bin in the guest.
CNI_PLUGINS_VERSION=${CNI_PLUGINS_VERSION:-v1.6.2}
HERE=$(cd "$(dirname "$0")" && pwd)
HASH=$( { cat "$0" "$HERE/build-cni-plugins.sh"; echo "pkgs=$PKGS"; echo "disk=$DISK_GB"; echo "box=$BOX_NAME"; echo "cni=$CNI_PLUGINS_VERSION"; } | sha256sum | cut -c1-64)
BOX_DIR="$VAGRANT_HOME/boxes/$(echo "$BOX_NAME" | sed 's#/#-VAGRANTSLASH-#')/0/libvirt"
installed_hash() { cat "$BOX_DIR/recipe.sha256" 2>/dev/null || true; }

case "$MODE" in
  hash) echo "$HASH"; exit 0 ;;
  check)
    if [ "$(installed_hash)" = "$HASH" ]; then echo "box $BOX_NAME is current ($HASH)"; exit 0; fi
    echo "box $BOX_NAME missing or stale (have '$(installed_hash)', want $HASH)"; exit 1 ;;
esac
if [ "$FORCE" = 0 ] && [ "$(installed_hash)" = "$HASH" ]; then
  echo "box $BOX_NAME is current (recipe $HASH); nothing to do (--force rebuilds)"; exit 0
fi
[ "$(id -u)" = 0 ] || { echo "build-box.sh: must run as root (debootstrap, chroot)" >&2; exit 1; }
for c in debootstrap qemu-img mkfs.ext4 vagrant sha256sum; do
  command -v "$c" >/dev/null || { echo "build-box.sh: missing $c (run vms/setup-host.sh)" >&2; exit 1; }
done

VAGRANT_PUB=$(ls /usr/share/rubygems-integration/all/gems/vagrant-*/keys/vagrant.pub 2>/dev/null | head -1 || true)
[ -n "$VAGRANT_PUB" ] || VAGRANT_PUB=/usr/share/vagrant/keys/vagrant.pub
[ -f "$VAGRANT_PUB" ] || { echo "build-box.sh: Vagrant's insecure public key not found" >&2; exit 1; }
# Mirror: first "URIs:" of the deb822 stanza with Suites: bookworm, else sources.list, else Debian's.
MIRROR=${MIRROR:-$(awk '/^URIs:/{u=$2} /^Suites:.*bookworm( |$)/{print u; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)}
[ -n "$MIRROR" ] || MIRROR=$(awk '$1=="deb" && $3=="bookworm"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
echo "box $BOX_NAME: recipe $HASH, mirror $MIRROR, work dir $WORK"

ROOT=$WORK/rootfs
t0=$(date +%s)
rm -rf "$WORK"; mkdir -p "$WORK/box"
debootstrap --variant=minbase --include="$PKGS" bookworm "$ROOT" "$MIRROR"
t1=$(date +%s); echo "debootstrap: $((t1-t0)) s"

# ---- root filesystem ---------------------------------------------------------------------------
echo nrh > "$ROOT/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 nrh\n' > "$ROOT/etc/hosts"
echo '/dev/vda / ext4 errors=remount-ro 0 1' > "$ROOT/etc/fstab"
: > "$ROOT/etc/machine-id"            # empty: each VM generates its own on first boot
rm -f "$ROOT/var/lib/dbus/machine-id"
# persistent journal: evidence needs `journalctl -b -1` (the boot before the reboot)
mkdir -p "$ROOT/var/log/journal" "$ROOT/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=persistent\nSystemMaxUse=200M\n' > "$ROOT/etc/systemd/journald.conf.d/nrh.conf"

# networking: systemd-networkd, DHCP on eth0 (Vagrant writes 50-vagrant-eth1.network itself)
mkdir -p "$ROOT/etc/systemd/network"
printf '[Match]\nName=eth0\n[Network]\nDHCP=ipv4\n[DHCPv4]\nClientIdentifier=mac\n' > "$ROOT/etc/systemd/network/10-eth0.network"
chroot "$ROOT" systemctl enable systemd-networkd.service
chroot "$ROOT" systemctl mask systemd-networkd-wait-online.service

# ssh: per-VM host keys generated at boot, no DNS lookups
rm -f "$ROOT"/etc/ssh/ssh_host_*
mkdir -p "$ROOT/etc/systemd/system/ssh.service.d"
printf '[Service]\nExecStartPre=\nExecStartPre=/usr/bin/ssh-keygen -A\nExecStartPre=/usr/sbin/sshd -t\n' \
  > "$ROOT/etc/systemd/system/ssh.service.d/keygen.conf"
echo 'UseDNS no' > "$ROOT/etc/ssh/sshd_config.d/vagrant.conf"
chroot "$ROOT" systemctl enable serial-getty@ttyS0.service

# faster boot under software emulation: small initramfs (only affects the initramfs; the root
# fs keeps every module), no periodic maintenance jobs
printf 'virtio_pci\nvirtio_blk\nvirtio_net\next4\n' >> "$ROOT/etc/initramfs-tools/modules"
echo 'MODULES=list' > "$ROOT/etc/initramfs-tools/conf.d/nrh.conf"
chroot "$ROOT" update-initramfs -u -k all
chroot "$ROOT" systemctl mask e2scrub_reap.service e2scrub_all.timer apt-daily.timer apt-daily-upgrade.timer fstrim.timer
if [ "$DOCKER" = 1 ]; then
  # dockerd at every boot (it restarts the pause containers, restart policy unless-stopped, before Nomad restores)
  chroot "$ROOT" systemctl enable containerd.service docker.service
  [ -x "$ROOT/usr/sbin/dockerd" ] || { echo "build-box.sh: docker.io did not install /usr/sbin/dockerd" >&2; exit 1; }
  if chroot "$ROOT" ldd /bin/busybox >/dev/null 2>&1; then echo "build-box.sh: /bin/busybox is not static" >&2; exit 1; fi
fi

# vagrant user: password-less sudo + Vagrant's insecure key (replaced per machine on first up)
chroot "$ROOT" useradd -m -s /bin/bash -U vagrant
echo 'vagrant:vagrant' | chroot "$ROOT" chpasswd
echo 'root:vagrant' | chroot "$ROOT" chpasswd
echo 'vagrant ALL=(ALL) NOPASSWD:ALL' > "$ROOT/etc/sudoers.d/vagrant"; chmod 440 "$ROOT/etc/sudoers.d/vagrant"
install -d -m 700 -o 1000 -g 1000 "$ROOT/home/vagrant/.ssh"
install -m 600 -o 1000 -g 1000 "$VAGRANT_PUB" "$ROOT/home/vagrant/.ssh/authorized_keys"

# Nomad's CNI plugins: Debian's 1.1.1 (/usr/lib/cni, used by cni-ipam-reboot) prints "version unknown", which
# fails Nomad's plugin version constraints for bridge jobs; so the box also carries versioned builds.
CNI_CACHE=${CNI_CACHE:-${HOME:-/root}/.cache/nomad-reboot-harness/cni-plugins-$CNI_PLUGINS_VERSION}
bash "$HERE/build-cni-plugins.sh" "$CNI_CACHE" "$CNI_PLUGINS_VERSION"
install -d "$ROOT/opt/cni/bin"
install -m 0755 "$CNI_CACHE"/{bridge,host-local,loopback,firewall,portmap} "$ROOT/opt/cni/bin/"

chroot "$ROOT" apt-get clean
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/* "$ROOT"/var/log/*.log "$ROOT"/var/cache/debconf/*-old

# ---- checks: kernel modules for bridge networking, CNI plugins -----------------------------------
KVER=$(ls "$ROOT/lib/modules" | sort -V | tail -1)
missing=""
for m in $NEED_MODULES; do modinfo -b "$ROOT" -k "$KVER" -F filename "$m" >/dev/null 2>&1 || missing="$missing $m"; done
[ -z "$missing" ] || { echo "build-box.sh: kernel modules missing from the root fs:$missing" >&2; exit 1; }
for p in bridge host-local loopback firewall portmap; do
  [ -x "$ROOT/usr/lib/cni/$p" ] || { echo "build-box.sh: CNI plugin /usr/lib/cni/$p missing" >&2; exit 1; }
  [ -x "$ROOT/opt/cni/bin/$p" ] || { echo "build-box.sh: CNI plugin /opt/cni/bin/$p missing" >&2; exit 1; }
done
echo "guest kernel $KVER; modules present: $NEED_MODULES"

# ---- kernel/initrd + disk image ------------------------------------------------------------------
cp "$ROOT/boot/vmlinuz-$KVER" "$WORK/box/vmlinuz"
cp "$ROOT/boot/initrd.img-$KVER" "$WORK/box/initrd.img"
truncate -s "${DISK_GB}G" "$WORK/root.raw"
mkfs.ext4 -q -F -L nrh-root -d "$ROOT" "$WORK/root.raw"   # no loop device or mount needed
qemu-img convert -c -O qcow2 "$WORK/root.raw" "$WORK/box/box.img"
rm -f "$WORK/root.raw"
t2=$(date +%s); echo "image: $((t2-t1)) s"

echo "{\"provider\": \"libvirt\", \"format\": \"qcow2\", \"virtual_size\": $DISK_GB}" > "$WORK/box/metadata.json"
echo "$HASH" > "$WORK/box/recipe.sha256"
cat > "$WORK/box/Vagrantfile" <<'EOF'
# Box defaults (nomad-reboot-harness): direct kernel boot with the kernel shipped in the box.
require "fileutils"
boxdir  = File.dirname(__FILE__)
bootdir = "/var/lib/libvirt/boot"
tag     = File.basename(File.expand_path("../..", boxdir)).gsub(/[^A-Za-z0-9_.-]/, "_")
kernel  = File.join(bootdir, "#{tag}-vmlinuz")
initrd  = File.join(bootdir, "#{tag}-initrd.img")
begin
  FileUtils.mkdir_p(bootdir)
  { "vmlinuz" => kernel, "initrd.img" => initrd }.each do |src, dst|
    s = File.join(boxdir, src)
    FileUtils.cp(s, dst) if File.exist?(s) && !(File.exist?(dst) && FileUtils.compare_file(s, dst))
  end
rescue SystemCallError => e
  warn "nomad-reboot-harness box: cannot install kernel into #{bootdir}: #{e}"
end
Vagrant.configure("2") do |config|
  config.vm.synced_folder ".", "/vagrant", disabled: true
  config.vm.provider :libvirt do |lv|
    lv.kernel   = kernel
    lv.initrd   = initrd
    lv.cmd_line = "root=/dev/vda rw console=ttyS0 net.ifnames=0 mitigations=off quiet"
    lv.disk_bus = "virtio"
    lv.nic_model_type = "virtio"
    lv.video_type = "none"
    lv.graphics_type = "none"
  end
end
EOF
( cd "$WORK/box" && tar -czf "$WORK/nrh-bookworm.box" metadata.json Vagrantfile recipe.sha256 box.img vmlinuz initrd.img )
t3=$(date +%s); echo "package: $((t3-t2)) s"; ls -l "$WORK/nrh-bookworm.box"

# vagrant-libvirt uploads each box once into the "default" pool as
# <name with -VAGRANTSLASH->_vagrant_box_image_<ver>_<timestamp>_box.img and never refreshes it.
# Delete this box's old base volumes that no other volume (a VM overlay) is backed by.
if virsh -q -c qemu:///system pool-info default >/dev/null 2>&1; then
  prefix=$(echo "$BOX_NAME" | sed 's#/#-VAGRANTSLASH-#')_vagrant_box_image_
  vols=$(virsh -q -c qemu:///system vol-list default 2>/dev/null | awk '{print $1}')
  for v in $(echo "$vols" | grep "^$prefix" || true); do
    path=$(virsh -q -c qemu:///system vol-path --pool default "$v")
    used=0
    for o in $(echo "$vols" | grep -v "^$prefix" || true); do
      virsh -q -c qemu:///system vol-dumpxml --pool default "$o" 2>/dev/null | grep -qF "<path>$path</path>" && used=1
    done
    if [ "$used" = 0 ]; then virsh -c qemu:///system vol-delete --pool default "$v"; else echo "keeping $v (a VM disk uses it)"; fi
  done
else
  echo "libvirtd not reachable: stale base volumes of $BOX_NAME (if any) were not cleaned"
fi
vagrant box add --force --name "$BOX_NAME" "$WORK/nrh-bookworm.box"
[ "$(installed_hash)" = "$HASH" ] || { echo "build-box.sh: box added but $BOX_DIR/recipe.sha256 missing" >&2; exit 1; }
rm -rf "$ROOT" "$WORK/box"   # keep only the .box file
t4=$(date +%s); echo "box add: $((t4-t3)) s; total: $((t4-t0)) s"

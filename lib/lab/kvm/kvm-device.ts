// /dev/kvm for libvirt's QEMU user on a host without udev. udev's default rule (50-udev-default.rules:
// KERNEL=="kvm", GROUP="kvm", MODE="0660") gives the device to the kvm group, which libvirt's QEMU user is in. Where
// no udev ran (containers, microVMs, hosts without systemd) the node stays root:root 0600: libvirt probes QEMU's
// capabilities with KVM on, then finds KVM "not available now" for its QEMU user, calls the cache outdated and probes
// QEMU again before every domain start and every snapshot revert (12 s each on the 2-core lab machine: six probes of
// about 2 s, docs/benchmarks.md) and at libvirtd's own start. The lab host applies udev's default and records the
// mode it found, which `destroy --host` puts back.
import { chmod, chown, readFile, stat } from 'node:fs/promises';

export const KVM_DEVICE = '/dev/kvm';

/** Owner, group and permission bits of a device node. */
export interface DeviceMode {
  uid: number;
  gid: number;
  /** permission bits only (0o777) */
  mode: number;
}

/** The gid of group `name` in /etc/group text, or undefined. Pure. */
export function groupGid(etcGroup: string, name: string): number | undefined {
  for (const line of etcGroup.split('\n')) {
    const [group, , gid] = line.split(':');
    if (group === name && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return undefined;
}

/** `root:kvm 0660` for messages. Pure. */
export function describeMode(m: DeviceMode, names: Record<number, string> = {}): string {
  const who = (id: number) => names[id] ?? String(id);
  return `${who(m.uid)}:${who(m.gid)} 0${(m.mode & 0o777).toString(8)}`;
}

/**
 * What to set so the kvm group can read and write the device (udev's default), or undefined when it can already
 * (group kvm with rw, or rw for everyone, as GitHub's runners set it) or when there is no such device or group. Pure.
 */
export function kvmDeviceFix(dev: DeviceMode | undefined, kvmGid: number | undefined): DeviceMode | undefined {
  if (!dev || kvmGid === undefined) return undefined;
  if ((dev.mode & 0o006) === 0o006) return undefined;
  if (dev.gid === kvmGid && (dev.mode & 0o060) === 0o060) return undefined;
  return { uid: dev.uid, gid: kvmGid, mode: (dev.mode & 0o777) | 0o060 };
}

async function readMode(file: string): Promise<DeviceMode | undefined> {
  const s = await stat(file).catch(() => undefined);
  return s ? { uid: s.uid, gid: s.gid, mode: s.mode & 0o777 } : undefined;
}

/** Apply udev's default to /dev/kvm when it is missing; returns the mode found and the one set, or undefined. */
export async function fixKvmDevice(
  file = KVM_DEVICE,
  groupFile = '/etc/group',
): Promise<{ before: DeviceMode; after: DeviceMode } | undefined> {
  const before = await readMode(file);
  const kvmGid = groupGid(await readFile(groupFile, 'utf8').catch(() => ''), 'kvm');
  const after = kvmDeviceFix(before, kvmGid);
  if (!before || !after) return undefined;
  await chown(file, after.uid, after.gid);
  await chmod(file, after.mode);
  return { before, after };
}

/** Put back the mode found, when the device still has the one set (nobody changed it since). */
export async function restoreKvmDevice(
  set: { before: DeviceMode; after: DeviceMode },
  file = KVM_DEVICE,
): Promise<boolean> {
  const now = await readMode(file);
  if (!now || now.gid !== set.after.gid || now.mode !== set.after.mode) return false;
  await chown(file, set.before.uid, set.before.gid);
  await chmod(file, set.before.mode);
  return true;
}

// Why the VM tier cannot run here, or undefined when it can (real Vagrant + libvirt + the offline box, as root).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The box the harness builds offline (vms/build-box.ts). */
export const BOX = 'nomad-reboot-harness/bookworm';

/** A visible skip reason, or undefined when vagrant, vagrant-libvirt, libvirtd, ip netns and the box are all present. */
export function vmSkipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'the VM tier needs root (libvirtd, network namespaces)';
  /** stdout of the command, or undefined when it cannot run (an empty output is still an answer) */
  const has = (cmd: string, args: string[]): string | undefined => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 });
    } catch {
      return undefined;
    }
  };
  if (has('vagrant', ['--version']) === undefined) return 'vagrant is not installed (run: reboot-harness setup)';
  if (!existsSync('/usr/sbin/libvirtd')) return 'libvirtd is not installed (run: reboot-harness setup)';
  if (has('ip', ['netns', 'list']) === undefined) return '`ip netns` is not available (iproute2)';
  if (!(has('vagrant', ['plugin', 'list']) ?? '').includes('vagrant-libvirt'))
    return 'the vagrant-libvirt plugin is missing (apt-get install vagrant-libvirt)';
  if (!(has('vagrant', ['box', 'list']) ?? '').includes(BOX))
    return `the box ${BOX} is not built (run: npx tsx vms/build-box.ts)`;
  return undefined;
}

/** libvirt domains whose name contains `needle` (empty when libvirt cannot be asked). */
export function domainsMatching(needle: string): string[] {
  try {
    return execFileSync('virsh', ['-c', 'qemu:///system', 'list', '--all', '--name'], {
      encoding: 'utf8',
      timeout: 30_000,
    })
      .split('\n')
      .filter((n) => n.includes(needle));
  } catch {
    return [];
  }
}

/** libvirt volumes in the default pool whose name contains `needle`. */
export function volumesMatching(needle: string): string[] {
  try {
    return execFileSync('virsh', ['-c', 'qemu:///system', 'vol-list', 'default'], { encoding: 'utf8', timeout: 30_000 })
      .split('\n')
      .filter((n) => n.includes(needle));
  } catch {
    return [];
  }
}

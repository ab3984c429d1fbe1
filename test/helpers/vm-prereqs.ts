// Why the VM tier cannot run here, or undefined when it can (real Vagrant + libvirt + the offline box, as root).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DOCKER_BOX } from '../../lib/cluster/docker-image.js';

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

/**
 * The lines of `virsh -c qemu:///system <args>` that contain `needle`. Throws when virsh cannot be asked (not installed,
 * libvirtd down, a timeout): a "nothing left" assertion must fail when it could not look, never pass on an empty list.
 */
function virshLinesMatching(args: string[], needle: string): string[] {
  let out: string;
  try {
    out = execFileSync('virsh', ['-c', 'qemu:///system', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
  } catch (e) {
    const err = e as { status?: number | null; stderr?: string; message?: string };
    const why = (err.stderr ?? '').trim() || err.message || String(e);
    throw new Error(`virsh ${args.join(' ')} could not be asked (exit ${err.status ?? 'none'}): ${why}`);
  }
  return out.split('\n').filter((n) => n.includes(needle));
}

/** Why a test of the docker variant cannot run: vmSkipReason, else the Docker box not added; undefined when it can. */
export function dockerSkipReason(): string | undefined {
  const vm = vmSkipReason();
  if (vm) return vm;
  let boxes = '';
  try {
    boxes = execFileSync('vagrant', ['box', 'list'], { encoding: 'utf8', timeout: 60_000 });
  } catch {
    // no list: the box counts as missing
  }
  return boxes.includes(DOCKER_BOX)
    ? undefined
    : `the Docker box ${DOCKER_BOX} is not built (npm run harness -- setup --docker)`;
}

/** libvirt domains whose name contains `needle`; throws when libvirt cannot be asked. */
export function domainsMatching(needle: string): string[] {
  return virshLinesMatching(['list', '--all', '--name'], needle);
}

/** libvirt volumes in the default pool whose name contains `needle`; throws when libvirt cannot be asked. */
export function volumesMatching(needle: string): string[] {
  return virshLinesMatching(['vol-list', 'default'], needle);
}

// The provider's own tools for what Vagrant cannot do: a power reset, and checking that no VM of a run is left.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { runCommand, type RunCommand } from '../exec/run.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';
import type { Provider } from '../model/lab-spec.js';

/** libvirt connection the lab uses (system daemon; a unix socket, so it works from any netns). */
export const LIBVIRT_URI = 'qemu:///system';

/** The provider's id of a machine (libvirt domain UUID, VirtualBox VM UUID) from `.vagrant/machines/<name>/<provider>/id`, if created. */
export async function readMachineId(vagrantDir: string, name: string, provider: Provider): Promise<string | undefined> {
  try {
    const id = (await fs.readFile(path.join(vagrantDir, '.vagrant', 'machines', name, provider, 'id'), 'utf8')).trim();
    return id || undefined;
  } catch {
    return undefined;
  }
}

/** Domain names vagrant-libvirt may have used: the machine name (vms/Vagrantfile sets default_prefix "") and its default `<dir basename>_<name>`. */
export function libvirtDomainNames(vagrantDir: string, name: string): string[] {
  const clean = (s: string) => s.replace(/[^-a-z0-9_.]/gi, '');
  return [clean(name), clean(`${path.basename(vagrantDir)}_${name}`)];
}

/** argv of the hypervisor's hard reset (power cycle without a guest shutdown) for machine id `id`. */
function hardResetArgv(provider: Provider, id: string): [string, string[]] {
  return provider === 'libvirt'
    ? ['virsh', ['-c', LIBVIRT_URI, 'reset', id]]
    : ['VBoxManage', ['controlvm', id, 'reset']];
}

interface HypervisorOptions {
  deadline: Deadline;
  run?: RunCommand;
  logger?: Logger;
}

/** Press the reset button of a VM through its hypervisor (`virsh reset` / `VBoxManage controlvm reset`). */
export async function hardReset(
  provider: Provider,
  id: string,
  { deadline, run = runCommand, logger }: HypervisorOptions,
): Promise<void> {
  const [file, args] = hardResetArgv(provider, id);
  await run(file, args, { deadline, logger });
}

/** argv that powers a VM off hard (`virsh destroy` keeps the domain defined) or on again. */
function powerArgv(provider: Provider, id: string, to: 'off' | 'on'): [string, string[]] {
  if (provider === 'libvirt') return ['virsh', ['-c', LIBVIRT_URI, to === 'off' ? 'destroy' : 'start', id]];
  return ['VBoxManage', to === 'off' ? ['controlvm', id, 'poweroff'] : ['startvm', id, '--type', 'headless']];
}

/** Pull the plug of a VM, or plug it in again, through its hypervisor. */
export async function power(
  provider: Provider,
  id: string,
  to: 'off' | 'on',
  { deadline, run = runCommand, logger }: HypervisorOptions,
): Promise<void> {
  const [file, args] = powerArgv(provider, id, to);
  await run(file, args, { deadline, logger });
}

/** Which of `names`/`ids` still exist as VMs of the provider (after destroy this must be empty). */
export async function leftoverVms(
  provider: Provider,
  { names, ids }: { names: readonly string[]; ids: readonly string[] },
  { deadline, run = runCommand, logger }: HypervisorOptions,
): Promise<string[]> {
  if (provider === 'libvirt') {
    const byName = (await run('virsh', ['-c', LIBVIRT_URI, 'list', '--all', '--name'], { deadline, logger })).stdout
      .split('\n')
      .map((s) => s.trim());
    const byUuid = ids.length
      ? (await run('virsh', ['-c', LIBVIRT_URI, 'list', '--all', '--uuid'], { deadline, logger })).stdout
          .split('\n')
          .map((s) => s.trim())
      : [];
    return [...names.filter((n) => byName.includes(n)), ...ids.filter((i) => byUuid.includes(i))];
  }
  const vms = (await run('VBoxManage', ['list', 'vms'], { deadline, logger })).stdout;
  return ids.filter((i) => vms.includes(`{${i}}`));
}

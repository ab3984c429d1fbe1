// A Vagrant lab without VMs: the lab spec of run `runId` under `root`, and what the fake `vagrant` on PATH answers to
// `ssh-config` for each machine: every "machine" is the test's one local sshd.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MachineRole } from '../../lib/model/topology.js';
import type { LabSpec } from '../../lib/model/lab-spec.js';
import type { TestSshd } from './sshd.js';

const IP: Record<MachineRole, string> = { server: '10.199.0.10', client: '10.199.0.11' };

/** The spec: `<runId>-<role>` machines, networks named after the run, serial logs in <root>/serial. */
export function fakeLabSpec(root: string, runId: string, roles: MachineRole[] = ['server', 'client']): LabSpec {
  return {
    runId,
    box: 'vmlab/bookworm',
    provider: 'libvirt',
    cpus: 1,
    memoryMb: 768,
    machines: roles.map((role) => ({ name: `${runId}-${role}`, role, privateIp: IP[role] })),
    privateNetwork: { name: `${runId}-priv`, subnet: '10.199.0.0/24' },
    libvirt: {
      driver: 'qemu',
      tbCacheMb: 256,
      cpuModel: 'Nehalem',
      managementNetwork: { name: `${runId}-mgmt`, address: '10.198.0.0/24' },
      serialLogDir: path.join(root, 'serial'),
    },
    bootTimeoutS: 600,
  };
}

/** The spec above, with <root>/fake/ssh-config-<machine>.out pointing every machine at `sshd`. */
export function fakeVagrantLab(root: string, runId: string, sshd: TestSshd, roles?: MachineRole[]): LabSpec {
  const spec = fakeLabSpec(root, runId, roles);
  for (const m of spec.machines) {
    const block = `Host ${m.name}\n  HostName 127.0.0.1\n  User ${sshd.target.user}\n  Port ${sshd.port}\n  StrictHostKeyChecking no\n  IdentityFile ${sshd.target.identityFiles[0]}\n`;
    writeFileSync(
      path.join(root, 'fake', `ssh-config-${m.name}.out`),
      `1796206585,${m.name},ssh-config,${block.replaceAll('\n', '\\n')}\n${block}`,
    );
  }
  return spec;
}

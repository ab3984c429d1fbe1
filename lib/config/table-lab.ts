// The configuration keys of the lab: which provider, how many machines, the existing hosts of the SSH provider, and
// the VMs' box, memory, networks and warm snapshots. Part of the one table of keys (table.ts).
import { PROVIDER_NAMES } from './schema.js';
import { MAX_CLIENTS, SERVER_COUNTS } from '../model/topology.js';
import { argvList, bool, int, intOneOf, oneOf, str, type Field } from './fields.js';
import { boxName, cpuModel, HOST_KEYS, hostList, netnsName, subnet24 } from './network-fields.js';

import type { FieldRow } from './fields.js';

export const LAB_ROWS: FieldRow[] = [
  {
    yaml: 'lab.provider',
    flag: 'provider',
    env: 'HARNESS_PROVIDER',
    doc: 'libvirt or virtualbox (VMs made by Vagrant), or ssh (machines that already exist: lab.hosts)',
    parse: oneOf(PROVIDER_NAMES),
  },
  {
    yaml: 'lab.servers',
    flag: 'servers',
    env: 'HARNESS_SERVERS',
    doc: 'how many Nomad servers (one Raft cluster): 1, 3 or 5; with lab.provider ssh, the length of lab.hosts.servers',
    parse: intOneOf(SERVER_COUNTS, 'give 1, 3 or 5 (Raft wants an odd number of servers)'),
  },
  {
    yaml: 'lab.clients',
    flag: 'clients',
    env: 'HARNESS_CLIENTS',
    doc: `how many Nomad clients, 1 to ${MAX_CLIENTS}; with lab.provider ssh, the length of lab.hosts.clients`,
    parse: int(1, MAX_CLIENTS),
  },
  ...(['servers', 'clients'] as const).map(
    (list): Field => ({
      yaml: `lab.hosts.${list}`,
      path: ['lab', 'hosts', list],
      doc: `lab.provider ssh: the ${list.slice(0, -1)} hosts, a list of {address, user, key, port, jump} (port 22 unless given)`,
      parse: hostList,
    }),
  ),
  ...(['server', 'client'] as const).flatMap((role): Field[] => {
    const at = (k: keyof typeof HOST_KEYS) => ({
      yaml: `lab.hosts.${role}.${k}`,
      path: ['lab', 'hosts', role, k],
      parse: HOST_KEYS[k],
    });
    const doc = (what: string) =>
      `lab.provider ssh: ${what} of the one ${role} host (older form of lab.hosts.${role}s)`;
    return [
      { ...at('address'), doc: doc('address') },
      { ...at('user'), doc: doc('SSH user (root or passwordless sudo)') },
      { ...at('key'), file: 'read', doc: doc('private key file') },
      { ...at('port'), doc: doc('SSH port') },
      { ...at('jump'), doc: doc('jump host [user@]host[:port] (same key)') },
    ];
  }),
  {
    yaml: 'lab.hard_reset_command',
    parse: argvList,
    doc: 'lab.provider ssh: power reset of a host, an argv list ({role}, {address} replaced); hard reboots need it',
  },
  {
    yaml: 'lab.hosts_netns',
    flag: 'hosts-netns',
    parse: netnsName,
    doc:
      'lab.provider ssh: reach the hosts from inside this existing network namespace (e.g. VMs of a libvirtd ' +
      'that runs in one); "" = where the CLI runs',
  },
  {
    yaml: 'lab.box',
    flag: 'box',
    env: 'HARNESS_BOX',
    doc: 'Vagrant box (built offline by `reboot-harness setup`, or any public box)',
    parse: boxName,
  },
  { yaml: 'lab.cpus', flag: 'cpus', doc: 'vCPUs per VM', parse: int(1, 16) },
  {
    yaml: 'lab.memory_mb',
    flag: 'memory',
    doc: 'memory per VM in MiB',
    parse: int(512, 65536, ' MiB'),
  },
  {
    yaml: 'lab.libvirt_driver',
    flag: 'libvirt-driver',
    env: 'HARNESS_LIBVIRT_DRIVER',
    doc: 'libvirt domain type: auto (KVM when a probe boots the box kernel under it, else emulation), qemu or kvm',
    parse: oneOf(['auto', 'qemu', 'kvm'] as const),
  },
  {
    yaml: 'lab.tb_cache_mb',
    flag: 'tb-cache',
    doc: 'QEMU translation-cache cap per VM under software emulation (0 = QEMU default)',
    parse: int(0, 4096, ' MiB'),
  },
  {
    yaml: 'lab.cpu_model',
    flag: 'cpu-model',
    doc: 'guest CPU model under software emulation',
    parse: cpuModel,
  },
  {
    yaml: 'lab.netns',
    flag: 'netns',
    env: 'HARNESS_NETNS',
    doc: 'run libvirtd and the lab inside this network namespace ("" = host network)',
    parse: netnsName,
  },
  {
    yaml: 'lab.private_subnet',
    flag: 'private-subnet',
    doc: 'private server<->client network (/24)',
    parse: subnet24('10.199.0.0/24'),
  },
  {
    yaml: 'lab.management_subnet',
    flag: 'management-subnet',
    doc: 'vagrant-libvirt management network used for SSH (/24)',
    parse: subnet24('10.198.0.0/24'),
  },
  {
    yaml: 'lab.boot_timeout_s',
    flag: 'boot-timeout',
    doc: 'seconds Vagrant waits for a VM to boot',
    parse: int(30, 3600, ' s'),
  },
  {
    yaml: 'lab.work_dir',
    file: 'write',
    flag: 'work-dir',
    env: 'HARNESS_WORK_DIR',
    doc: "where each run's Vagrant directory is made",
    parse: str('give a directory path'),
  },
  {
    yaml: 'lab.warm',
    env: 'HARNESS_WARM',
    parse: bool,
    doc: 'start from a snapshot of the prepared lab (VMs up, Nomad ready) of the same key, on a provider with snapshot/restore (libvirt); false or --fresh: cold; given true with one without it (ssh, virtualbox): a config problem',
  },
  {
    yaml: 'lab.warm_snapshot',
    flag: 'warm-snapshot',
    env: 'HARNESS_WARM_SNAPSHOT',
    doc: "what a warm lab's snapshot holds: after-nomad (VMs up, Nomad installed and ready: the build is part of its key) or before-nomad (VMs up, no Nomad ever run: one lab for every build, each installed after the revert; what bisect uses)",
    parse: oneOf(['after-nomad', 'before-nomad'] as const),
  },
];

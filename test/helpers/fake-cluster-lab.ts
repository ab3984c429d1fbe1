// A STAND-IN lab of one server and several clients for integration tests (not VMs): machines named as a topology
// names them (server-1, client-1, client-2, ...), answering boot ids and the probes of the job's ports from the Nomad
// stand-in's state (a bridge address only from its own client). Faults: the first client follows the stand-in's
// timeline (its primary node), the others' agents register again (fake-nomad/nodes.ts), the server drops every
// connection for a moment; power-loss-all takes every machine down at once and brings them all back.
import { randomUUID } from 'node:crypto';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';
import type { ExecOptions, ExecResult, Lab, Machine, RebootKind, RebootRecord, Tunnel } from '../../lib/model/lab.js';
import { sleep, type Deadline } from '../../lib/time/deadlines.js';
import { TimeoutError } from '../../lib/errors.js';
import { machineSlots, slotName, type Topology } from '../../lib/model/topology.js';
import { LEADER_COMMAND } from '../../lib/steps/leader-watch.js';
import { AGENT_UNIT_COMMAND } from '../../lib/lab/observe.js';
import { unitShow } from './fake-lab.js';
import type { FakeNomad } from './fake-nomad/index.js';
import { addClientNode, allocAnswered, healthByProbe, otherNodeRestarted } from './fake-nomad/nodes.js';
import { HOST_VOLUMES_DIR, volumeMarker } from './fake-nomad/host-volumes.js';
import { LAB_HOST_VOLUME } from '../../lib/model/volumes.js';

/**
 * Does a running alloc answer on host:port when asked from the machine on node `from`: through its node's address and
 * a mapped host port (from anywhere), or through its bridge address and the port's `to`, only from its own node (each
 * client has its own bridge subnet: another client's bridge holds no such address). The alloc that answered is told
 * to the stand-in: its drain counts a replacement healthy once it answered (fake-nomad/nodes.ts).
 */
function answers(nomad: FakeNomad, from: string | undefined, host: string, port: string): boolean {
  const c = nomad.cluster;
  const nodes = new Set(
    c
      .allNodes()
      .filter((n) => n.Attributes?.['unique.network.ip-address'] === host)
      .map((n) => n.ID),
  );
  const ports = (a: ApiAllocation) => a.AllocatedResources?.Shared?.Ports ?? [];
  const hit = [...c.allocs.values()].find(
    (a) =>
      a.ClientStatus === 'running' &&
      ((nodes.has(a.NodeID) && ports(a).some((p) => String(p.Value) === port)) ||
        (a.NodeID === from && a.NetworkStatus?.Address === host && ports(a).some((p) => String(p.To) === port))),
  );
  if (hit) allocAnswered(c, hit.ID);
  return !!hit;
}

/** The lab; the stand-in's primary client node must be named as the first client (the others are registered here). */
export function createFakeClusterLab(nomad: FakeNomad, t: Topology): Lab & { destroyed: boolean; rebooted: string[] } {
  const slots = machineSlots(t);
  const first = slotName(t, 'client', 1);
  const nodeOf = new Map<string, string>([[first, nomad.cluster.node.ID]]);
  nomad.cluster.serverName = slotName(t, 'server', 1);
  healthByProbe(nomad.cluster);
  nomad.servers.names = slots.filter((s) => s.role === 'server').map((s) => s.name);
  for (const s of slots.filter((x) => x.role === 'client' && x.index > 1))
    nodeOf.set(s.name, addClientNode(nomad.cluster, s.name, `10.199.0.${20 + s.index}`).ID);
  // every lab client declares the static host volume (vms/templates/client.hcl), as its node shows it:
  // structs.ClientHostVolumeConfig, with the ID field (empty for a static volume) from 1.10 on
  const withId = !/^1\.[0-9]\./.test(nomad.cluster.version);
  for (const n of nomad.cluster.allNodes())
    n.HostVolumes = {
      [LAB_HOST_VOLUME.name]: {
        Name: LAB_HOST_VOLUME.name,
        Path: LAB_HOST_VOLUME.path,
        ReadOnly: false,
        ...(withId ? { ID: '' } : {}),
      },
    };
  const boot = new Map(slots.map((s) => [s.name, randomUUID()]));
  const down = new Set<string>();
  const rebooted: string[] = [];
  const machine = (name: string, role: string): Machine => ({
    role,
    name: `fake-${name}`,
    async exec(cmd: string, opts: ExecOptions): Promise<ExecResult> {
      const ok = (stdout: string, code = 0): ExecResult => ({ code, stdout, stderr: '', durationMs: 1 });
      if (down.has(name)) {
        await sleep(Number.MAX_SAFE_INTEGER, opts.deadline).catch(() => undefined);
        throw new TimeoutError(`ssh to ${name}`, 0, 'connection refused (stand-in host is down)');
      }
      if (cmd.includes('/proc/sys/kernel/random/boot_id')) return ok(`${boot.get(name)}\n12.00 1.00\n`);
      // the first client's journal is the stand-in's own; the others keep none; every agent runs, never restarted
      if (cmd.includes('journalctl -u nomad'))
        return ok(name === first && !cmd.includes(' -b -') ? nomad.clientLog().join('\n') : '-- No entries --\n');
      if (cmd === AGENT_UNIT_COMMAND) return ok(unitShow(0));
      // a host volume on this client (the lab's static one, or a dynamic one the mkdir plugin made under the data dir):
      // what the tasks that mounted it there wrote (fake-nomad/host-volumes.ts)
      const volumeFile = new RegExp(`^cat '?(${LAB_HOST_VOLUME.path}|${HOST_VOLUMES_DIR}/[0-9a-f-]+)/([^'/]+)'?$`).exec(
        cmd,
      );
      if (volumeFile) {
        const [, dir, file] = volumeFile as unknown as [string, string, string];
        // Nomad's data dir is root's only (0700): read as the SSH user, real 2.0.5 said "Permission denied"
        if (dir.startsWith(HOST_VOLUMES_DIR) && !opts.sudo)
          return { code: 1, stdout: '', stderr: `cat: ${dir}/${file}: Permission denied`, durationMs: 1 };
        const marker = volumeMarker(nomad.cluster, nodeOf.get(name) ?? '', dir, file);
        return marker === undefined
          ? { code: 1, stdout: '', stderr: `cat: ${dir}/${file}: No such file or directory`, durationMs: 1 }
          : ok(`${marker}\n`);
      }
      // the machine's own agent answers /v1/status/leader: here the stand-in's API, unreachable while its server is down
      if (cmd === LEADER_COMMAND) {
        const r = await fetch(`${nomad.addr}/v1/status/leader`).catch(() => undefined);
        return r ? ok(await r.text()) : { code: 7, stdout: '', stderr: 'Connection refused', durationMs: 1 };
      }
      // the commands of lib/lab/observe.ts: curl's URL (quoted or not), bash's /dev/tcp with host and port last
      const url = (/^curl .*'(http:\/\/[^']+)'$/.exec(cmd) ?? /^curl .* (http:\/\/\S+)$/.exec(cmd))?.[1];
      const curl = url ? new URL(url) : undefined;
      const tcp = /\/dev\/tcp\/.* '?([0-9.]+)'? '?(\d+)'?$/.exec(cmd);
      // Note: URL elides the scheme's default port (80)
      const probe = curl ? [curl.hostname, curl.port || '80'] : tcp ? [tcp[1]!, tcp[2]!] : undefined;
      if (probe) {
        if (answers(nomad, nodeOf.get(name), probe[0]!, probe[1]!)) return ok(curl ? '200' : 'connected\n');
        return { code: curl ? 7 : 1, stdout: curl ? '000' : '', stderr: 'Connection refused', durationMs: 1 };
      }
      return ok('');
    },
    async upload() {},
    async writeFile() {},
    async bootId() {
      return boot.get(name)!;
    },
    async forward(): Promise<Tunnel> {
      throw new Error('stand-in lab: no tunnels');
    },
    async disconnect() {},
  });
  /** Every machine down at once (the server and every client), then all back: servers first, as the default order. */
  async function powerLossAll(target: string, deadline: Deadline): Promise<RebootRecord> {
    const requestedAt = Date.now();
    const before = boot.get(target)!;
    rebooted.push(target);
    for (const s of slots) down.add(s.name);
    nomad.serverDown();
    nomad.clientDown();
    await sleep(300, deadline);
    for (const s of slots) boot.set(s.name, randomUUID());
    for (const s of slots) down.delete(s.name);
    nomad.serverUp();
    nomad.clientUp();
    for (const [slot, id] of nodeOf)
      if (slot !== first) otherNodeRestarted(nomad.cluster, nomad.cluster.allNodes().find((n) => n.ID === id)!);
    const marks = [{ atMs: requestedAt, label: 'every machine powered off' }];
    return {
      machine: target,
      kind: 'power-loss-all',
      bootIdBefore: before,
      bootIdAfter: boot.get(target)!,
      requestedAt,
      backAt: Date.now(),
      marks,
    };
  }
  return {
    id: 'stand-in-cluster',
    machines: Object.fromEntries(slots.map((s) => [s.name, machine(s.name, s.role)])),
    destroyed: false,
    rebooted,
    async reboot(name: string, kind: RebootKind, { deadline }: { deadline: Deadline }): Promise<RebootRecord> {
      if (kind === 'power-loss-all') return powerLossAll(name, deadline);
      const requestedAt = Date.now();
      const before = boot.get(name)!;
      rebooted.push(name);
      down.add(name);
      if (name === first) nomad.clientDown();
      else if (name.startsWith('server')) nomad.serverDown();
      await sleep(name.startsWith('server') ? 300 : 60, deadline);
      boot.set(name, randomUUID());
      down.delete(name);
      if (name === first) nomad.clientUp();
      else if (name.startsWith('server')) nomad.serverUp();
      else otherNodeRestarted(nomad.cluster, nomad.cluster.allNodes().find((n) => n.ID === nodeOf.get(name))!);
      return {
        machine: name,
        kind,
        bootIdBefore: before,
        bootIdAfter: boot.get(name)!,
        requestedAt,
        backAt: Date.now(),
      };
    },
    async collectEvidence() {
      return { 'vagrant-status.txt': 'stand-in cluster lab: no Vagrant' };
    },
    describe() {
      return 'stand-in cluster lab (integration test): nothing to reach';
    },
    async destroy() {
      this.destroyed = true;
    },
  };
}

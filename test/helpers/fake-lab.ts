// A STAND-IN lab for integration tests: two "machines" that answer the scenario's remote commands
// from the Nomad stand-in's state instead of running them in VMs. It is not a VM; tests say so.
import { randomUUID } from 'node:crypto';
import type {
  FaultMark,
  FaultParams,
  Lab,
  Machine,
  ExecResult,
  ExecOptions,
  RebootKind,
  RebootRecord,
  Tunnel,
} from '../../lib/model/lab.js';
import type { Deadline } from '../../lib/time/deadlines.js';
import { sleep } from '../../lib/time/deadlines.js';
import { TimeoutError } from '../../lib/errors.js';
import type { FakeNomad } from './fake-nomad/server.js';
import { CNI_STATE_DIRS } from '../../lib/checks/cni-state.js';
import { cniListingCommand } from '../../lib/cluster/parse-cni-listing.js';
import { HOST_NETNS_COMMAND, NET_STATE_COMMAND } from '../../lib/parse/host-observe.js';
import { NO_DOCKER } from '../../lib/cluster/docker-image.js';
import { hostFactsCommand } from '../../lib/cluster/evidence.js';
import { AGENT_UNIT_COMMAND } from '../../lib/lab/observe.js';
import { notBackError } from '../../lib/lab/not-back.js';
import { hostRebooted, taskHostMemory, wholeAllocAnswer, type TaskHostMemory } from './fake-lab-tasks.js';

/** What the stand-in client's serial console shows when it never comes back: a guest stuck before its network. */
export const STAND_IN_CONSOLE = [
  '[    0.000000] Linux version 6.1.0-28-amd64 (stand-in console, not a VM)',
  '[    2.104511] systemd[1]: Starting systemd-networkd.service - Network Configuration...',
  '[   92.311702] INFO: task systemd-udevd:182 blocked for more than 90 seconds.',
  '[  122.003117] stand-in: the guest hangs here',
  '',
].join('\r\n');

/** How long the stand-in server host stays down: long enough for a scenario to probe the client meanwhile. */
const SERVER_DOWN_MS = 300;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** What cniListingCommand prints on the client, from the stand-in's host-local state (files in glob order). */
export function cniListing(nomad: FakeNomad, dirs: readonly string[]): string {
  return dirs
    .map((d) => {
      const files = nomad.cluster.cni.get(d);
      if (!files) return `DIR ${b64(d)} 0\n`;
      return (
        `DIR ${b64(d)} 1\n` +
        [...files.keys()]
          .sort()
          .map((f) => `FILE ${b64(f)} ${b64(files.get(f)!)}\n`)
          .join('')
      );
    })
    .join('');
}

export interface FakeLabOptions {
  nomad: FakeNomad;
  /** answers an HTTP probe made from inside a machine */
  httpAnswers: (url: string) => Promise<boolean>;
  /** the client never answers SSH again after a reboot */
  sshNeverBack?: boolean;
  /** dockerd's version on the client (the Docker box); absent: docker is not installed */
  dockerVersion?: string;
}

/**
 * What NET_STATE_COMMAND prints on the client: a netns named by each running alloc and one veth on bridge nomad per
 * running alloc (as real Nomad leaves them: see test/fixtures/observe/net-state-*), plus planted `leftovers`.
 */
export function netStateListing(nomad: FakeNomad, leftovers: { netns: string[]; veths: string[] }): string {
  const live = [...nomad.cluster.allocs.values()].filter((a) => a.ClientStatus === 'running').map((a) => a.ID);
  const netns = [...live, ...leftovers.netns];
  const veths = [...live.map((id) => `veth${id.slice(0, 8)}`), ...leftovers.veths];
  return `${netns.join('\n')}${netns.length ? '\n' : ''}---\n${veths.map((v, i) => `${i + 5}: ${v}@if2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue master nomad state UP mode DEFAULT group default qlen 1000\\    link/ether 02:00:00:00:00:${(i + 16).toString(16)} brd ff:ff:ff:ff:ff:ff\n`).join('')}`;
}

/**
 * What HOST_NETNS_COMMAND prints on the client: a namespace named by each running alloc with its address (and its task's
 * process, unless the task was left in an older namespace), then the namespaces only a task process still holds.
 */
export function hostNetnsListing(nomad: FakeNomad): string {
  const c = nomad.cluster;
  const orphaned = new Set(c.orphanNetns.map((o) => o.allocId));
  const lines: string[] = [];
  let inode = 4026532300;
  let pid = 2000;
  for (const a of [...c.allocs.values()].filter((x) => x.ClientStatus === 'running')) {
    const i = inode++;
    lines.push(`N ${i} ${a.ID}`);
    if (a.NetworkStatus?.Address) lines.push(`A ${i} eth0 ${a.NetworkStatus.Address}/20`);
    if (!orphaned.has(a.ID)) lines.push(`P ${i} ${pid++} python3`);
  }
  for (const o of c.orphanNetns) {
    const i = inode++;
    lines.push(`P ${i} ${o.pid} python3`, `A ${i} eth0 ${o.address}/20`);
  }
  return lines.join('\n') + '\n';
}

/** What AGENT_UNIT_COMMAND prints for a running agent systemd restarted `n` times this boot. */
export function unitShow(n: number): string {
  return `ActiveState=active\nExecMainStartTimestamp=Sat 2026-12-05 10:00:00 UTC\nExecMainStatus=0\nNRestarts=${n}\n`;
}

/** Build the stand-in lab; `commands` records every remote command per role; `leftovers` plants leaked netns/veths. */
export function createFakeLab(o: FakeLabOptions): Lab & {
  commands: Record<string, string[]>;
  destroyed: boolean;
  leftovers: { netns: string[]; veths: string[] };
  heartbeatGraceMs: number;
  tasks: TaskHostMemory;
} {
  const leftovers = { netns: [] as string[], veths: [] as string[] };
  // the whole-alloc reads (task dirs, processes, agent, nat table, exec); a test bends them through `tasks.faults`
  const tasks = taskHostMemory();
  const commands: Record<string, string[]> = { server: [], client: [] };
  const boot: Record<string, { id: string; at: number }> = {
    server: { id: randomUUID(), at: Date.now() },
    client: { id: randomUUID(), at: Date.now() },
  };
  const down = new Set<string>();
  // systemd's restarts of each machine's agent in its current boot (agent-kill)
  const restarts: Record<string, number> = {};
  // the client's journal is the stand-in's; the boot a reboot ended and the server's are quiet (no agent lines kept)
  const journalOf = (role: string, cmd: string): string =>
    role === 'client' && !cmd.includes(' -b -') ? o.nomad.clientLog().join('\n') : '-- No entries --\n';
  const machine = (role: string): Machine => ({
    role,
    name: `fake-${role}`,
    async exec(cmd: string, opts: ExecOptions): Promise<ExecResult> {
      commands[role]!.push(cmd);
      if (down.has(role)) {
        await sleep(Number.MAX_SAFE_INTEGER, opts.deadline).catch(() => undefined);
        throw new TimeoutError(`ssh to ${role}`, 0, 'connection refused (stand-in host is down)');
      }
      return answer(role, cmd);
    },
    async upload() {},
    async writeFile() {},
    async bootId() {
      return boot[role]!.id;
    },
    async forward(): Promise<Tunnel> {
      throw new Error('stand-in lab: no tunnels; connect to the Nomad stand-in directly');
    },
    async disconnect() {},
  });
  const answer = async (role: string, cmd: string): Promise<ExecResult> => {
    const ok = (stdout: string, code = 0): ExecResult => ({ code, stdout, stderr: '', durationMs: 1 });
    // the guest's clock (readClockOffset): the host's here, the stand-ins share one clock
    if (cmd === 'date +%s%N') return ok(`${BigInt(Date.now()) * 1_000_000n}\n`);
    if (cmd.includes('/proc/sys/kernel/random/boot_id'))
      return ok(`${boot[role]!.id}\n${((Date.now() - boot[role]!.at) / 1000).toFixed(2)} 1.00\n`);
    const curl = /^curl .*'(http:\/\/[^']+)'$/.exec(cmd) ?? /^curl .* (http:\/\/\S+)$/.exec(cmd);
    if (curl)
      return (await o.httpAnswers(curl[1]!))
        ? ok('200')
        : {
            code: 7,
            stdout: '000',
            stderr: `curl: (7) Failed to connect to ${curl[1]}: Connection refused`,
            durationMs: 1,
          };
    // tcpProbeCommand: bash opens /dev/tcp/$0/$1 with host and port as the last two (quoted) words
    const tcp = /\/dev\/tcp\/.* '?([0-9.]+)'? '?(\d+)'?$/.exec(cmd);
    if (tcp)
      return (await o.httpAnswers(`http://${tcp[1]}:${tcp[2]}/`))
        ? ok('connected\n')
        : {
            code: 1,
            stdout: '',
            stderr: `bash: connect: Connection refused\nbash: line 1: /dev/tcp/${tcp[1]}/${tcp[2]}: Connection refused`,
            durationMs: 1,
          };
    if (cmd.includes('journalctl -u nomad')) return ok(journalOf(role, cmd));
    // the unit as systemd shows it: restarted once per agent-kill since the host booted
    if (cmd === AGENT_UNIT_COMMAND) return ok(unitShow(restarts[role] ?? 0));
    // the kernel and the CNI plugins' about lines, as the bookworm box answers (lib/parse/host-facts.ts)
    if (cmd === hostFactsCommand())
      return ok(
        `kernel 6.1.0-37-amd64\n${['bridge', 'firewall', 'host-local', 'loopback', 'portmap'].map((p) => `${p} present CNI ${p} plugin v1.6.2`).join('\n')}\n`,
      );
    if (role === 'client' && cmd === cniListingCommand()) return ok(cniListing(o.nomad, CNI_STATE_DIRS));
    if (role === 'client' && cmd === NET_STATE_COMMAND) return ok(netStateListing(o.nomad, leftovers));
    if (role === 'client' && cmd === HOST_NETNS_COMMAND) return ok(hostNetnsListing(o.nomad));
    const whole = wholeAllocAnswer(tasks, o.nomad, role, cmd);
    if (whole !== undefined) return ok(whole);
    // the docker variant: dockerd's version, then the image import (lib/cluster/docker-image.ts)
    if (/command -v docker|docker (version|import)/.test(cmd)) {
      if (!o.dockerVersion)
        return { code: NO_DOCKER, stdout: '', stderr: 'docker is not installed in this box\n', durationMs: 1 };
      return ok(
        cmd.includes('docker import')
          ? `sha256:${'5e'.repeat(32)}\n`
          : cmd.includes('docker version')
            ? `${o.dockerVersion}\n`
            : '/usr/bin/docker\n',
      );
    }
    return ok('');
  };
  const machines = { server: machine('server'), client: machine('client') };
  let agentPid = 700;
  return {
    id: 'stand-in',
    machines,
    commands,
    leftovers,
    tasks,
    destroyed: false,
    // the server's heartbeat_grace, for the partition (the stand-in env sets it from the config)
    heartbeatGraceMs: 5 * 60_000,
    async reboot(
      role: string,
      kind: RebootKind,
      { deadline, fault = {} }: { deadline: Deadline; fault?: FaultParams },
    ): Promise<RebootRecord> {
      const requestedAt = Date.now();
      const before = boot[role]!.id;
      const marks: FaultMark[] = [];
      // the faults that keep the host up: the agent restarts, or the client is cut off and healed
      if (kind === 'agent-kill') {
        const pid = agentPid;
        agentPid += 11;
        restarts[role] = (restarts[role] ?? 0) + 1;
        o.nomad.clientRestart();
        marks.push(
          { atMs: requestedAt, label: 'Nomad agent SIGKILLed', detail: `pid ${pid}` },
          { atMs: Date.now(), label: 'Nomad agent restarted by systemd', detail: `pid ${agentPid}` },
        );
        const facts = { 'agent.pid.before': String(pid), 'agent.pid.after': String(agentPid), 'agent.restarts': '1' };
        return {
          machine: role,
          kind,
          bootIdBefore: before,
          bootIdAfter: boot[role]!.id,
          requestedAt,
          backAt: Date.now(),
          marks,
          facts,
        };
      }
      if (kind === 'partition') {
        o.nomad.clientPartition(this.heartbeatGraceMs);
        await sleep(fault.partitionForMs ?? 0, deadline);
        o.nomad.clientHeal();
        marks.push(
          { atMs: requestedAt, label: 'partition: client cut off from the server' },
          { atMs: Date.now(), label: 'partition healed' },
        );
        return {
          machine: role,
          kind,
          bootIdBefore: before,
          bootIdAfter: boot[role]!.id,
          requestedAt,
          backAt: Date.now(),
          marks,
          facts: { 'partition.seconds': ((Date.now() - requestedAt) / 1000).toFixed(1) },
        };
      }
      down.add(role);
      // Note: the server host carries the Nomad server agent, the client host the client agent (and its allocs)
      if (role === 'server') o.nomad.serverDown();
      else o.nomad.clientDown();
      await sleep(role === 'server' ? SERVER_DOWN_MS : 50, deadline);
      if (kind === 'power-off') {
        marks.push({ atMs: Date.now(), label: 'powered off' });
        await sleep(fault.offForMs ?? 0, deadline);
        marks.push({ atMs: Date.now(), label: 'powered on' });
      }
      if (o.sshNeverBack) {
        // as lib/ssh/reboot.ts + lib/lab/vagrant/vagrant-lab.ts report it: the wait, the last SSH error, the console's tail
        await sleep(Number.MAX_SAFE_INTEGER, deadline).catch(() => undefined);
        if (deadline.signal.aborted && !(deadline.signal.reason instanceof TimeoutError)) throw deadline.signal.reason;
        const what = `fake-${role} to answer over SSH with a new boot_id (was ${before})`;
        const last = 'ssh vagrant@127.0.0.1:22: connect ECONNREFUSED 127.0.0.1:22 (stand-in host never came back)';
        const console = { path: `/stand-in/fake-${role}-serial.log`, text: STAND_IN_CONSOLE };
        throw notBackError(new TimeoutError(what, Date.now() - requestedAt, last), {
          machine: `fake-${role}`,
          kind,
          console,
        });
      }
      boot[role] = { id: randomUUID(), at: Date.now() };
      down.delete(role);
      restarts[role] = 0;
      if (role === 'server') o.nomad.serverUp();
      else {
        hostRebooted(tasks, o.nomad);
        o.nomad.clientUp();
      }
      return {
        machine: role,
        kind,
        bootIdBefore: before,
        bootIdAfter: boot[role]!.id,
        requestedAt,
        backAt: Date.now(),
        ...(marks.length ? { marks } : {}),
      };
    },
    async collectEvidence() {
      return { 'vagrant-status.txt': 'stand-in lab: no Vagrant', 'fake-client-serial.log': STAND_IN_CONSOLE };
    },
    describe() {
      return 'stand-in lab (integration test): nothing to reach';
    },
    async destroy() {
      this.destroyed = true;
    },
  };
}

// Part of the STAND-IN lab (not a host): what the client host answers to the whole-alloc reads, made from the Nomad
// stand-in's state in the shapes real hosts print (test/fixtures/whole-alloc/real-1.9.7): every running task's
// secrets/ and private/ on a tmpfs of its own, its processes in the alloc's namespace with the alloc's network variables,
// a steady agent, CNI's nat rules per running alloc, and `alloc exec` answering. `HostFaults` bends it the way a
// broken build does.
import type { ApiAllocation } from '../../lib/nomad/api-types.js';
import type { FakeNomad } from './fake-nomad/server.js';
import { TASK_PROCS_COMMAND } from '../../lib/parse/task-procs.js';
import { NAT_TABLE_COMMAND } from '../../lib/parse/iptables-nat.js';

/** Ways the stand-in client can be broken, set by a test before the run. */
export interface HostFaults {
  /** a host reboot leaves the restored allocs' secrets/ and private/ on the root filesystem (real 1.9.7-2.0.4, GH-28345) */
  secretsOnDiskAfterReboot: boolean;
  /**
   * the agent's samples after the fault are these recorded ones (`S <ms> <pid> <fds> …` lines a real client printed,
   * e.g. real-1.9.7/after-agent-kill: GH-27885), moved to now with their own spacing
   */
  recordedAgentSamples?: string;
}

/** What the stand-in host remembers between commands. */
export interface TaskHostMemory {
  faults: HostFaults;
  /** allocs whose task directories are plain directories on the root filesystem now */
  onDisk: Set<string>;
  /** CNI container IDs whose nat rules are left over (planted by a test) */
  natLeftovers: string[];
  /** a pid per task instance (alloc/task/StartedAt) */
  pids: Map<string, number>;
}

export function taskHostMemory(): TaskHostMemory {
  return { faults: { secretsOnDiskAfterReboot: false }, onDisk: new Set(), natLeftovers: [], pids: new Map() };
}

/** The client host rebooted: with the fault set, the allocs it restores keep their task directories on disk. */
export function hostRebooted(m: TaskHostMemory, nomad: FakeNomad): void {
  if (!m.faults.secretsOnDiskAfterReboot) return;
  for (const a of running(nomad)) m.onDisk.add(a.ID);
}

const running = (nomad: FakeNomad): ApiAllocation[] =>
  [...nomad.cluster.allocs.values()].filter((a) => a.NodeID === nomad.cluster.node.ID && a.ClientStatus === 'running');
const ports = (a: ApiAllocation) => a.AllocatedResources?.Shared?.Ports ?? [];
const driverOf = (nomad: FakeNomad, a: ApiAllocation, task: string) =>
  nomad.cluster.jobs
    .get(a.JobID)
    ?.TaskGroups?.find((g) => g.Name === a.TaskGroup)
    ?.Tasks?.find((t) => t.Name === task)?.Driver;

/** taskDirsCommand's output: every alloc's tasks (running or not, as their directories stay until GC). */
function taskDirs(m: TaskHostMemory, nomad: FakeNomad, allocDir: string): string {
  const lines: string[] = [];
  for (const a of nomad.cluster.allocs.values()) {
    for (const task of Object.keys(a.TaskStates ?? {})) {
      for (const dir of ['secrets', 'private']) {
        const path = `${allocDir}/${a.ID}/${task}/${dir}`;
        lines.push(`D ${path}`);
        const own = a.ClientStatus === 'running' && !m.onDisk.has(a.ID);
        lines.push(
          own
            ? `TARGET="${path}" FSTYPE="tmpfs" SOURCE="tmpfs" OPTIONS="rw,noexec,relatime,size=1024k,inode64"`
            : 'TARGET="/" FSTYPE="ext4" SOURCE="/dev/vda1" OPTIONS="rw,relatime,errors=remount-ro"',
        );
      }
    }
  }
  return lines.join('\n') + '\n';
}

/** The host's own network namespace (where a host-mode alloc's tasks run). */
const HOST_NETNS = 4026531840;

/** TASK_PROCS_COMMAND's output: a process per running task in its alloc's namespace (named, unless docker's pause holds it). */
function taskProcs(m: TaskHostMemory, nomad: FakeNomad): string {
  const lines: string[] = [];
  let inode = 4026532400;
  for (const a of running(nomad)) {
    // a host-mode alloc's tasks share the host's namespace and see their ports on the host's address
    const bridged = nomad.cluster.bridged(a);
    const ns = bridged ? inode++ : HOST_NETNS;
    const tasks = Object.entries(a.TaskStates ?? {}).filter(([, t]) => t.State === 'running');
    if (bridged && !tasks.some(([t]) => driverOf(nomad, a, t) === 'docker')) lines.push(`N ${ns} ${a.ID}`);
    const ip = a.NetworkStatus?.Address;
    for (const [task, st] of tasks) {
      const key = `${a.ID}/${task}/${st.StartedAt ?? ''}`;
      const pid = m.pids.get(key) ?? m.pids.set(key, 3000 + m.pids.size * 7).get(key)!;
      lines.push(`P ${pid} ${ns} python3`, `E ${pid} NOMAD_ALLOC_ID=${a.ID}`, `E ${pid} NOMAD_TASK_NAME=${task}`);
      for (const p of ports(a)) {
        const port = bridged && p.To > 0 ? p.To : p.Value;
        const at = bridged ? ip : p.HostIP;
        if (at)
          lines.push(`E ${pid} NOMAD_ALLOC_ADDR_${p.Label}=${at}:${port}`, `E ${pid} NOMAD_ALLOC_IP_${p.Label}=${at}`);
        lines.push(`E ${pid} NOMAD_ALLOC_PORT_${p.Label}=${port}`);
      }
      lines.push(`H ${pid} 1 0 `, `R ${pid} 1`);
    }
    if (ip) lines.push(`A ${ns} eth0 ${ip}/20`);
  }
  return lines.join('\n') + '\n';
}

/** agentSamplesCommand's output: a steady agent, an executor and a logmon per running exec task. */
function agentSamples(nomad: FakeNomad, count: number, intervalS: number): string {
  const tasks = running(nomad).flatMap((a) => Object.keys(a.TaskStates ?? {}).map((t) => driverOf(nomad, a, t)));
  const executors = tasks.filter((d) => d !== 'docker').length;
  const t0 = Date.now();
  return (
    Array.from(
      { length: count },
      (_, i) =>
        `S ${t0 + Math.round(i * intervalS * 1000)} 4242 31 ${executors} ${executors} ${tasks.length - executors}`,
    ).join('\n') + '\n'
  );
}

/** Recorded sample lines with their times moved so the first is now (the check judges rates, not dates). */
function recordedSamples(text: string): string {
  const lines = text.split('\n').filter((l) => l.startsWith('S '));
  const t0 = Number(lines[0]?.split(' ')[1] ?? 0);
  const now = Date.now();
  return `${lines.map((l) => l.replace(/^S (\d+)/, (_, t: string) => `S ${now + Number(t) - t0}`)).join('\n')}\n`;
}

/** `iptables-save -t nat` as real CNI bridge + portmap leave it (real-1.9.7/initial), per running alloc and leftover. */
function natTable(m: TaskHostMemory, nomad: FakeNomad): string {
  const owners = [
    ...running(nomad).map((a) => ({ id: a.ID, ip: a.NetworkStatus?.Address ?? '172.26.64.250', ports: ports(a) })),
    ...m.natLeftovers.map((id) => ({ id, ip: '172.26.79.250', ports: [] })),
  ];
  const hash = (id: string) => id.replace(/-/g, '').slice(0, 24);
  const chains = owners.flatMap((o) => [`:CNI-${hash(o.id)} - [0:0]`, `:CNI-DN-${hash(o.id).slice(0, 21)} - [0:0]`]);
  const comment = (o: { id: string }, dnat = false) =>
    `-m comment --comment "${dnat ? 'dnat ' : ''}name: \\"nomad\\" id: \\"${o.id}\\""`;
  const rules = owners.flatMap((o) => [
    `-A POSTROUTING -s ${o.ip}/32 ${comment(o)} -j CNI-${hash(o.id)}`,
    `-A CNI-${hash(o.id)} -d 172.26.64.0/20 ${comment(o)} -j ACCEPT`,
    `-A CNI-${hash(o.id)} ! -d 224.0.0.0/4 ${comment(o)} -j MASQUERADE`,
    ...o.ports.map(
      (p) =>
        `-A CNI-DN-${hash(o.id).slice(0, 21)} -p tcp -m tcp --dport ${p.Value} -j DNAT --to-destination ${o.ip}:${p.To}`,
    ),
    `-A CNI-HOSTPORT-DNAT -p tcp ${comment(o, true)} -m multiport --dports ${o.ports.map((p) => p.Value).join(',') || '1'} -j CNI-DN-${hash(o.id).slice(0, 21)}`,
  ]);
  return [
    '# Generated by iptables-save v1.8.9 (nf_tables) (stand-in)',
    '*nat',
    ':PREROUTING ACCEPT [0:0]',
    ':INPUT ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ':POSTROUTING ACCEPT [0:0]',
    ...chains,
    ':CNI-HOSTPORT-DNAT - [0:0]',
    ':CNI-HOSTPORT-MASQ - [0:0]',
    ':CNI-HOSTPORT-SETMARK - [0:0]',
    '-A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT',
    '-A OUTPUT -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT',
    ...rules,
    'COMMIT',
    '',
  ].join('\n');
}

/** `nomad alloc exec ... /bin/sh -c 'exit 0'` on the server: works for a running task of a running alloc. */
function allocExec(nomad: FakeNomad, allocId: string, task: string): string {
  const a = nomad.cluster.allocs.get(allocId);
  if (!a) return `No allocation(s) with prefix or id "${allocId}" found\nEXIT 1\n`;
  const st = a.TaskStates?.[task];
  if (!st) return `Could not find task named: ${task}, found:\n${Object.keys(a.TaskStates ?? {}).join('\n')}\nEXIT 1\n`;
  return st.State === 'running' ? 'EXIT 0\n' : `failed to exec into task: task "${task}" is not running\nEXIT 1\n`;
}

/** The answer to one of the whole-alloc commands, or undefined when `cmd` is none of them. */
export function wholeAllocAnswer(m: TaskHostMemory, nomad: FakeNomad, role: string, cmd: string): string | undefined {
  if (role === 'client' && cmd.includes('findmnt -n -P'))
    return taskDirs(m, nomad, /' sh '?([^' ]+)'?$/.exec(cmd)?.[1] ?? '/var/lib/nomad/alloc');
  if (role === 'client' && cmd === TASK_PROCS_COMMAND) return taskProcs(m, nomad);
  const samples = /^i=0; while \[ "\$i" -lt (\d+) \][^]*sleep ([\d.]+)/.exec(cmd);
  if (role === 'client' && samples)
    return m.faults.recordedAgentSamples
      ? recordedSamples(m.faults.recordedAgentSamples)
      : agentSamples(nomad, Number(samples[1]), Number(samples[2]));
  if (role === 'client' && cmd === NAT_TABLE_COMMAND) return natTable(m, nomad);
  const exec = / alloc exec .*-task '?([^' ]+)'? '?([0-9a-f-]{36})'? /.exec(cmd);
  if (role === 'server' && exec) return allocExec(nomad, exec[2]!, exec[1]!);
  return undefined;
}

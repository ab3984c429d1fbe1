// Every mapped port of every alloc, probed from where a client would reach it (the lab's machine that runs the alloc),
// once or until all answer.
import type { AllocSnap, HttpProbe, NodeSnap } from '../model/evidence.js';
import { probeKindOf, type ProbeKinds } from '../checks/probe-kind.js';
import { firstOf, type Lab } from '../model/lab.js';
import { httpProbe, tcpProbe } from '../lab/observe.js';
import type { Nomad } from '../nomad/client.js';
import { toNodeSnap } from '../nomad/parse.js';
import type { Deadline } from '../time/deadlines.js';
import { waitFor } from '../time/wait-for.js';

async function probeOne(
  lab: Lab,
  from: string,
  kind: 'http' | 'tcp',
  host: string,
  port: number,
  d: Deadline,
): Promise<HttpProbe> {
  const m = lab.machines[from]!;
  const p = kind === 'http' ? await httpProbe(m, `http://${host}:${port}/`, d) : await tcpProbe(m, host, port, d);
  return { ...p, from };
}

/**
 * The machine (slot name) an alloc runs on: its node's name, which the lab sets to the machine's slot name. A lab
 * with one client needs no node to say it; in a larger one an alloc on a node no machine carries has none (each
 * client has its own bridge subnet, so asking another client would probe some other alloc or nothing). Pure.
 */
export function machineOfAlloc(
  lab: Pick<Lab, 'machines'>,
  alloc: Pick<AllocSnap, 'nodeId'>,
  nodes: readonly NodeSnap[],
): string | undefined {
  const name = nodes.find((n) => n.id === alloc.nodeId)?.name;
  if (name && lab.machines[name]) return name;
  const clients = Object.keys(lab.machines).filter((n) => lab.machines[n]!.role === 'client');
  return clients.length === 1 ? clients[0] : undefined;
}

/**
 * Probe every mapped port of one alloc (but those the job marks `none`): its bridge address from the client it runs
 * on (a bridge address answers only there), its host port (on that node's address) from the first server.
 */
export async function probeAllocPorts(
  lab: Lab,
  alloc: AllocSnap,
  nodes: readonly NodeSnap[],
  kinds: ProbeKinds | undefined,
  d: Deadline,
): Promise<HttpProbe[]> {
  const out: HttpProbe[] = [];
  const tag = (p: HttpProbe, port: string, target: 'bridge' | 'host-port', kind: 'http' | 'tcp'): HttpProbe => ({
    ...p,
    allocId: alloc.id,
    port,
    target,
    kind,
  });
  const node = nodes.find((n) => n.id === alloc.nodeId);
  const on = machineOfAlloc(lab, alloc, nodes);
  const server = firstOf(lab, 'server').name;
  const unprobed = (from: string, url: string, error: string): HttpProbe => ({
    from,
    url,
    ok: false,
    status: undefined,
    error,
  });
  for (const m of alloc.ports) {
    const kind = probeKindOf(kinds, alloc.taskGroup, m.label);
    if (kind === 'none') continue;
    if (alloc.address) {
      const url = `${alloc.address}:${m.to}`;
      const p = on
        ? await probeOne(lab, on, kind, alloc.address, m.to, d)
        : unprobed('client', url, `its node ${alloc.nodeId.slice(0, 8)} is no machine of the lab`);
      out.push(tag(p, m.label, 'bridge', kind));
    }
    const hostIp = m.hostIp || node?.attributes['unique.network.ip-address'];
    const noHost = unprobed(server, `(host port ${m.value})`, 'no host address for the mapped port');
    out.push(tag(hostIp ? await probeOne(lab, server, kind, hostIp, m.value, d) : noHost, m.label, 'host-port', kind));
  }
  return out;
}

/**
 * What a probe of the job's ports covers: these allocs on this lab, the nodes they run on (each alloc is probed from
 * its own node's machine), the probe kinds the job asks.
 */
interface AllocsProbe {
  lab: Lab;
  allocs: AllocSnap[];
  nodes: readonly NodeSnap[];
  kinds: ProbeKinds | undefined;
}

/** Probe every running alloc's ports once. */
export async function probeAllocs({ lab, allocs, nodes, kinds }: AllocsProbe, d: Deadline): Promise<HttpProbe[]> {
  const out: HttpProbe[] = [];
  for (const a of allocs.filter((x) => x.clientStatus === 'running'))
    out.push(...(await probeAllocPorts(lab, a, nodes, kinds, d)));
  return out;
}

/** The nodes the allocs run on, as Nomad has them now (`known` ones are not read again; a node gone is left out). */
export async function allocNodes(
  nomad: Nomad,
  allocs: readonly AllocSnap[],
  known: readonly NodeSnap[],
  d: Deadline,
): Promise<NodeSnap[]> {
  const out = [...known];
  for (const id of new Set(allocs.map((a) => a.nodeId))) {
    if (out.some((n) => n.id === id)) continue;
    const n = await nomad.node(id, { signal: d.signal }).then(
      (r) => toNodeSnap(r.body),
      () => undefined,
    );
    if (n) out.push(n);
  }
  return out;
}

/** Poll until every probe of every given alloc answers (a server takes a moment to bind after its task starts). */
export async function waitForReachable(p: AllocsProbe, d: Deadline): Promise<HttpProbe[]> {
  const n = p.allocs.length;
  const what = `every mapped port of ${n} alloc${n === 1 ? '' : 's'} to answer (bridge address and host port)`;
  return waitFor(
    what,
    async (dd) => {
      const probes = await probeAllocs(p, dd);
      const bad = probes
        .filter((p) => !p.ok)
        .map((p) => `${p.allocId?.slice(0, 8)} ${p.port} ${p.from} -> ${p.url}: ${p.error}`);
      return bad.length === 0 ? { done: true, value: probes } : { done: false, reason: bad.join('; ') };
    },
    { deadline: d, intervals: [500, 1000, 2000] },
  );
}

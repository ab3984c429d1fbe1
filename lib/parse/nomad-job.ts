// Pure: what the reboot scenario needs to know of a job (Nomad's JSON job, from `nomad job run -output` or
// /v1/jobs/parse) and whether it can run it: a service job with at least one bridge-mode group.
import { PROBE_META_PREFIX, probeKindOf, probeKindsFromMeta, type ProbeKinds } from '../checks/probe-kind.js';
import type { DisconnectFields } from '../model/disconnect.js';
import { groupDisconnectFields } from './job-disconnect.js';

/** A group as the scenario sees it. */
export interface JobGroupInfo {
  name: string;
  count: number;
  bridge: boolean;
  ports: string[];
  drivers: string[];
  /** its disconnect fields as the job sets them (model/disconnect.ts applies them per Nomad line) */
  disconnect: DisconnectFields;
}

/** A job as the scenario sees it. */
export interface JobInfo {
  id: string;
  type: string;
  groups: JobGroupInfo[];
  /** allocs the job asks for in all (sum of group counts) */
  expectedAllocs: number;
  drivers: string[];
  probeKinds: ProbeKinds;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strMap = (v: unknown): Record<string, string> | undefined => {
  const o = obj(v);
  return o
    ? (Object.fromEntries(Object.entries(o).filter(([, x]) => typeof x === 'string')) as Record<string, string>)
    : undefined;
};

/** Read Nomad's job JSON (`{"Job": {...}}` or the job itself; unset fields may be null, as `-output` leaves them). */
export function jobInfo(raw: unknown): { info?: JobInfo; problems: string[] } {
  const root = obj(raw);
  const job = obj(root?.['Job']) ?? root;
  if (!job) return { problems: ['is not a Nomad job (expected a JSON object with a Job)'] };
  const id = typeof job['ID'] === 'string' ? job['ID'] : typeof job['Name'] === 'string' ? job['Name'] : '';
  const type = typeof job['Type'] === 'string' && job['Type'] ? job['Type'] : 'service';
  const groups = arr(job['TaskGroups'])
    .map(obj)
    .filter((g): g is Obj => !!g)
    .map((g) => {
      const nets = arr(g['Networks'])
        .map(obj)
        .filter((n): n is Obj => !!n);
      const ports = nets
        .flatMap((n) => [...arr(n['DynamicPorts']), ...arr(n['ReservedPorts'])])
        .map(obj)
        .map((p) => String(p?.['Label'] ?? ''))
        .filter(Boolean);
      const drivers = arr(g['Tasks'])
        .map(obj)
        .map((t) => String(t?.['Driver'] ?? ''))
        .filter(Boolean);
      return {
        name: String(g['Name'] ?? ''),
        count: typeof g['Count'] === 'number' ? g['Count'] : 1,
        bridge: nets.some((n) => n['Mode'] === 'bridge'),
        ports,
        drivers,
        disconnect: groupDisconnectFields(g),
        meta: strMap(g['Meta']),
      };
    });
  const { kinds, problems } = probeKindsFromMeta(
    strMap(job['Meta']),
    groups.map((g) => ({ name: g.name, meta: g.meta, ports: g.ports })),
  );
  const info: JobInfo = {
    id,
    type,
    probeKinds: kinds,
    groups: groups.map(({ meta: _meta, ...g }) => g),
    expectedAllocs: groups.reduce((s, g) => s + g.count, 0),
    drivers: [...new Set(groups.flatMap((g) => g.drivers))],
  };
  return { info, problems };
}

/** Why the reboot scenario cannot run this job, each with the fix; empty when it can. */
export function jobProblems(info: JobInfo): { message: string; fix: string }[] {
  const out: { message: string; fix: string }[] = [];
  const job = `job "${info.id}"`;
  const service = 'use a service job (type = "service")';
  if (info.type === 'batch' || info.type === 'sysbatch') {
    const message = `${job} is a ${info.type} job: its allocs finish, so there is nothing to restore after a reboot`;
    out.push({ message, fix: `${service} whose tasks keep running` });
  } else if (info.type === 'system') {
    const message = `${job} is a system job: Nomad restores system allocs without waiting for the servers, which this scenario does not judge`;
    out.push({ message, fix: service });
  } else if (info.type !== 'service') {
    out.push({ message: `${job} has type "${info.type}"`, fix: service });
  }
  if (!info.groups.some((g) => g.bridge)) {
    const groups = info.groups.map((g) => g.name).join(', ') || 'none';
    const message = `${job} has no group with network { mode = "bridge" } (groups: ${groups})`;
    out.push({
      message,
      fix: 'add network { mode = "bridge" } to a group: the scenario tests bridge networking across a reboot',
    });
  }
  // A bridge group whose allocs map no port gives the port wait and http-reachable nothing to probe, so every such
  // alloc would fail as "not probed": refused here, before anything exists, rather than judged without its network.
  for (const g of info.groups) {
    if (!g.bridge || g.count === 0) continue;
    const probed = g.ports.filter((p) => probeKindOf(info.probeKinds, g.name, p) !== 'none');
    if (probed.length) continue;
    const why = g.ports.length ? `every port it maps (${g.ports.join(', ')}) has probe "none"` : 'it maps no port';
    out.push({
      message: `${job} group "${g.name}" is a bridge group the scenario cannot probe: ${why}; http-reachable and the wait for every mapped port need one`,
      fix: `map a port in its network block (port "http" { to = 8080 }; a port that does not speak HTTP: ${PROBE_META_PREFIX}<label> = "tcp" in its meta)`,
    });
  }
  if (info.expectedAllocs === 0)
    out.push({ message: `${job} asks for no alloc (every group has count = 0)`, fix: 'give a group count >= 1' });
  return out;
}

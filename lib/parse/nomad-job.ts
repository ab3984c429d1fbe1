// Pure: what the reboot scenarios need to know of a job (Nomad's JSON job, from `nomad job run -output` or
// /v1/jobs/parse) and whether they can run it: a job of a type the scenario judges (service everywhere; system,
// sysbatch and batch on the cluster scenarios), a service job with a bridge-mode group or a host-mode group with a port
// to probe, that runs once registered, on drivers the box has, with no static port asked of more allocs than the lab
// has clients.
import { PROBE_META_PREFIX, probeKindOf, probeKindsFromMeta, type ProbeKinds } from '../checks/probe-kind.js';
import type { DisconnectFields } from '../model/disconnect.js';
import { groupDisconnectFields } from './job-disconnect.js';
import { JOB_TYPES, type JobType } from '../model/kinds.js';

/** A group as the scenario sees it. */
interface JobGroupInfo {
  name: string;
  count: number;
  bridge: boolean;
  /** its network mode: "bridge", "host" (also when it has no network block: Nomad's default), "none", "cni/<name>" */
  mode: string;
  ports: string[];
  /** the labels of its static ports (ReservedPorts): one alloc of the group per client at most */
  staticPorts: string[];
  drivers: string[];
  /** its tasks' names by driver, for a message naming the block */
  tasksByDriver: Record<string, string[]>;
  /** its disconnect fields as the job sets them (model/disconnect.ts applies them per Nomad line) */
  disconnect: DisconnectFields;
  /** its reschedule policy allows no reschedule (attempts = 0, unlimited = false) */
  noReschedule: boolean;
  /** ephemeral_disk { sticky, migrate } */
  disk: { sticky: boolean; migrate: boolean };
  /** its volume blocks: name, type (host, csi) and source */
  volumes: { name: string; type: string; source: string }[];
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
  /** a periodic block that is enabled: Nomad runs it only on its schedule */
  periodic: boolean;
  /** a parameterized block: Nomad runs it only when dispatched */
  parameterized: boolean;
  /**
   * whether the build that parsed the job has dynamic host volumes (1.10+): its volume requests carry `Sticky`, added
   * with them; undefined when the job asks for no volume (nothing to tell by)
   */
  dynamicHostVolumes?: boolean;
}

/** What the lab offers a job, where known: how many clients, which task drivers its box runs. */
export interface JobLab {
  clients?: number;
  /** the drivers the box's clients run (undefined: not known before the lab is up, checked there) */
  drivers?: readonly string[];
  /** the box's name, for the message */
  box?: string;
  /** the static host volumes its clients declare (undefined: not known) */
  hostVolumes?: readonly string[];
}

/** Which job types a scenario judges, and what to say where it does not. */
export interface JobTypesTaken {
  scenario: string;
  types: readonly JobType[];
  /** where the other types are judged, for the fix */
  elsewhere?: string;
  /** the scenario creates the job's dynamic host volumes on every client (the cluster scenarios do) */
  dynamicVolumes?: boolean;
}

/** The reboot scenario that follows one client's allocs: service jobs only. */
export const SERVICE_ONLY: JobTypesTaken = {
  scenario: 'bridge-exec-reboot',
  types: ['service'],
  elsewhere: 'run it on rolling-reboot or server-reboot, which judge system, sysbatch and batch jobs',
};

/** The allocs a job means to run on a lab of `clients` client nodes: a system or sysbatch group runs one per node. */
export function expectedAllocsOn(info: Pick<JobInfo, 'type' | 'groups'>, clients: number): number {
  const perNode = info.type === 'system' || info.type === 'sysbatch';
  return info.groups.reduce((n, g) => n + (perNode ? Math.min(g.count, 1) * clients : g.count), 0);
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
      const staticPorts = nets
        .flatMap((n) => arr(n['ReservedPorts']))
        .map(obj)
        .map((p) => String(p?.['Label'] ?? ''))
        .filter(Boolean);
      const tasks = arr(g['Tasks']).map(obj);
      const drivers = tasks.map((t) => String(t?.['Driver'] ?? '')).filter(Boolean);
      const tasksByDriver: Record<string, string[]> = {};
      for (const t of tasks) {
        const d = String(t?.['Driver'] ?? '');
        if (d) tasksByDriver[d] = [...(tasksByDriver[d] ?? []), String(t?.['Name'] ?? '')];
      }
      const resched = obj(g['ReschedulePolicy']);
      const disk = obj(g['EphemeralDisk']);
      const volumeObjs = Object.values(obj(g['Volumes']) ?? {}).map(obj);
      const volumes = Object.entries(obj(g['Volumes']) ?? {}).map(([name, v]) => ({
        name,
        type: String(obj(v)?.['Type'] ?? 'host'),
        source: String(obj(v)?.['Source'] ?? ''),
      }));
      return {
        volumes,
        disk: { sticky: disk?.['Sticky'] === true, migrate: disk?.['Migrate'] === true },
        name: String(g['Name'] ?? ''),
        noReschedule: !!resched && resched['Attempts'] === 0 && resched['Unlimited'] !== true,
        count: typeof g['Count'] === 'number' ? g['Count'] : 1,
        bridge: nets.some((n) => n['Mode'] === 'bridge'),
        mode: String(nets[0]?.['Mode'] || 'host'),
        ports,
        staticPorts,
        drivers,
        tasksByDriver,
        disconnect: groupDisconnectFields(g),
        meta: strMap(g['Meta']),
        sticky: volumeObjs.map((v) => (v && 'Sticky' in v ? 'known' : 'unknown')),
      };
    });
  const { kinds, problems } = probeKindsFromMeta(
    strMap(job['Meta']),
    groups.map((g) => ({ name: g.name, meta: g.meta, ports: g.ports })),
  );
  const periodic = obj(job['Periodic']);
  const sticky = groups.flatMap((g) => g.sticky);
  const info: JobInfo = {
    id,
    type,
    periodic: !!periodic && periodic['Enabled'] !== false,
    parameterized: !!obj(job['ParameterizedJob']),
    probeKinds: kinds,
    groups: groups.map(({ meta: _meta, sticky: _sticky, ...g }) => g),
    ...(sticky.length ? { dynamicHostVolumes: sticky.includes('known') } : {}),
    expectedAllocs: groups.reduce((s, g) => s + g.count, 0),
    drivers: [...new Set(groups.flatMap((g) => g.drivers))],
  };
  return { info, problems };
}

/**
 * Why the reboot scenarios cannot run this job, each naming the block and the fix; empty when they can. With what the
 * lab offers (`lab`): a static port asked of more allocs than there are clients, a driver the box lacks.
 */
export function jobProblems(
  info: JobInfo,
  lab: JobLab = {},
  taken: JobTypesTaken = SERVICE_ONLY,
): { message: string; fix: string }[] {
  const out: { message: string; fix: string }[] = [];
  const job = `job "${info.id}"`;
  if (info.periodic)
    out.push({
      message: `${job} has a periodic block: Nomad runs it only on its schedule, so nothing runs when the fault comes`,
      fix: 'remove the periodic block (the scenario registers the job and waits for its allocs)',
    });
  if (info.parameterized)
    out.push({
      message: `${job} has a parameterized block: Nomad runs it only when dispatched, so nothing runs when the fault comes`,
      fix: 'remove the parameterized block (the scenario registers the job and waits for its allocs)',
    });
  if (!(JOB_TYPES as readonly string[]).includes(info.type))
    out.push({
      message: `${job} has type "${info.type}", which Nomad does not run`,
      fix: `use one of ${JOB_TYPES.map((t) => `type = "${t}"`).join(', ')}`,
    });
  else if (!taken.types.includes(info.type as JobType))
    out.push({
      message: `${job} is a ${info.type} job: ${taken.scenario} judges ${taken.types.join(', ')} jobs only`,
      fix: taken.elsewhere ?? `use ${taken.types.map((t) => `type = "${t}"`).join(' or ')}`,
    });
  const service = info.type === 'service';
  // A host-mode group is probed on its host port on the node running it; the bridge-only checks skip its allocs.
  for (const g of info.groups.filter((x) => x.mode !== 'bridge' && x.mode !== 'host'))
    out.push({
      message: `${job} group "${g.name}" has network { mode = "${g.mode}" }: the harness probes and judges bridge and host networking only`,
      fix: 'use mode = "bridge" or "host" in its network block',
    });
  const probedHost = info.groups.some(
    (g) => g.mode === 'host' && g.count > 0 && g.ports.some((p) => probeKindOf(info.probeKinds, g.name, p) !== 'none'),
  );
  // Note: a system, batch or sysbatch job is judged by its allocs' fate, not by what answers: it need not map a port
  if (service && !info.groups.some((g) => g.bridge) && !probedHost) {
    const groups = info.groups.map((g) => g.name).join(', ') || 'none';
    const message = `${job} has no group with network { mode = "bridge" } or a host port to probe (groups: ${groups})`;
    out.push({
      message,
      fix: 'add network { mode = "bridge" } with a port to a group, or a port to a host-mode group (network { port "http" {} }): the scenarios judge a job by what answers across a reboot',
    });
  }
  // A bridge group whose allocs map no port gives the port wait and http-reachable nothing to probe, so every such
  // alloc would fail as "not probed": refused here, before anything exists, rather than judged without its network.
  for (const g of info.groups) {
    if (!service || !g.bridge || g.count === 0) continue;
    const probed = g.ports.filter((p) => probeKindOf(info.probeKinds, g.name, p) !== 'none');
    if (probed.length) continue;
    const why = g.ports.length ? `every port it maps (${g.ports.join(', ')}) has probe "none"` : 'it maps no port';
    out.push({
      message: `${job} group "${g.name}" is a bridge group the scenario cannot probe: ${why}; http-reachable and the wait for every mapped port need one`,
      fix: `map a port in its network block (port "http" { to = 8080 }; a port that does not speak HTTP: ${PROBE_META_PREFIX}<label> = "tcp" in its meta)`,
    });
  }
  for (const g of info.groups) {
    if (lab.clients === undefined || !g.staticPorts.length || g.count <= lab.clients) continue;
    const ports = g.staticPorts.map((p) => `"${p}"`).join(', ');
    out.push({
      message: `${job} group "${g.name}" has count = ${g.count} and the static port ${ports}: a static port is one per client, and the lab has ${lab.clients} client${lab.clients === 1 ? '' : 's'}, so ${g.count - lab.clients} alloc${g.count - lab.clients === 1 ? '' : 's'} would never be placed`,
      fix: `give the port no static value (port "${g.staticPorts[0]}" { to = ... }), lower count to ${lab.clients}, or give --clients ${g.count}`,
    });
  }
  if (lab.drivers) {
    for (const g of info.groups)
      for (const [driver, tasks] of Object.entries(g.tasksByDriver)) {
        if (lab.drivers.includes(driver)) continue;
        const where = tasks.map((t) => `task "${t}"`).join(', ');
        out.push({
          message: `${job} group "${g.name}" ${where} uses driver "${driver}", which the box${lab.box ? ` ${lab.box}` : ''} does not run (it runs ${lab.drivers.join(', ')})`,
          fix:
            driver === 'docker'
              ? 'use driver = "exec", or build the Docker box (`npm run harness -- setup --docker`) and give its --box'
              : `use driver = "${lab.drivers[0]}", or a --box whose clients run ${driver}`,
        });
      }
  }
  if (lab.hostVolumes)
    for (const g of info.groups)
      for (const v of g.volumes) {
        if (v.type === 'host' && lab.hostVolumes.includes(v.source)) continue;
        // another host volume is a dynamic one the harness creates on every client with the mkdir plugin (1.10+), in
        // the scenarios that create them
        const dynamic = v.type === 'host' && info.dynamicHostVolumes !== false;
        if (dynamic && taken.dynamicVolumes) continue;
        const offer = lab.hostVolumes.map((h) => `"${h}"`).join(', ');
        const asks = `${job} group "${g.name}" volume "${v.name}" asks for the host volume "${v.source}", which the lab's clients do not declare (they declare ${offer})`;
        out.push(
          v.type !== 'host'
            ? {
                message: `${job} group "${g.name}" volume "${v.name}" is a ${v.type} volume: the lab runs no ${v.type} plugin`,
                fix: `use type = "host" and source = ${offer} in the volume block (a directory on each client)`,
              }
            : dynamic
              ? {
                  message: `${asks}; ${taken.scenario} creates no dynamic host volume (rolling-reboot and server-reboot do)`,
                  fix: `run it on rolling-reboot or server-reboot, or use source = ${offer} (the lab's static host volume)`,
                }
              : {
                  message: `${asks}; as a dynamic host volume (which the harness would create with the mkdir plugin) it needs Nomad 1.10 or later, and this build's parse of the job has none (its volume blocks have no sticky field)`,
                  fix: `use source = ${offer} (the lab's static host volume), or a Nomad build of 1.10 or later for a dynamic host volume`,
                },
        );
      }
  if (info.expectedAllocs === 0)
    out.push({ message: `${job} asks for no alloc (every group has count = 0)`, fix: 'give a group count >= 1' });
  return out;
}

/**
 * The dynamic host volumes a job asks for: its host volume sources that are not among the lab's static ones, in order,
 * each once. The cluster scenarios create each on every client with Nomad's built-in mkdir plugin.
 */
export function dynamicVolumeNames(info: Pick<JobInfo, 'groups'>, staticVolumes: readonly string[]): string[] {
  const names = info.groups.flatMap((g) => g.volumes.filter((v) => v.type === 'host').map((v) => v.source));
  return [...new Set(names.filter((n) => n && !staticVolumes.includes(n)))];
}

/** Pure: each group's host volume among `judged` (its first such volume block), by group name; groups without one left out. */
export function hostVolumeOfGroups(info: Pick<JobInfo, 'groups'>, judged: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const g of info.groups) {
    const v = g.volumes.find((x) => x.type === 'host' && judged.includes(x.source));
    if (v) out[g.name] = v.source;
  }
  return out;
}

/**
 * Whether any of these job files (HCL, or Nomad's JSON) runs a task with the raw_exec driver: the lab's clients enable
 * raw_exec (off in Nomad by default) only then. Read before the lab exists, so from the text: a driver given through a
 * variable is not seen (the driver check at run time then names it). `read` gives a file's text.
 */
export async function jobsUseRawExec(
  files: readonly string[],
  read: (file: string) => Promise<string>,
): Promise<boolean> {
  for (const f of files) if (RAW_EXEC_DRIVER.test(await read(f).catch(() => ''))) return true;
  return false;
}

/** `driver = "raw_exec"` in HCL, `"Driver": "raw_exec"` in JSON. */
const RAW_EXEC_DRIVER = /\bdriver"?\s*[=:]\s*"raw_exec"/i;

// Part of the Nomad API stand-in (not Nomad): /v1/jobs/parse. Reads job/group/task names, driver, periodic and
// parameterized blocks, config, count, network mode, ports and reschedule (attempts, interval, delay) from HCL and
// fills the rest from the canonicalized sample in test/fixtures/nomad/job-parsed.json, as Canonicalize=true would.
import type { ApiJob, ApiTaskGroup } from '../../../lib/nomad/api-types.js';
import { parseHcl, parseVarFile, type HclBlock, type HclValue } from './hcl.js';
import { fixture } from './payloads.js';
import { parseGoDuration } from '../../../lib/nomad/client.js';

/** HCL (+ Variables string) -> a canonicalized-looking Job; throws Error with a parse message. */
export function parseJobHcl(hcl: string, variables = ''): ApiJob {
  const defaults: Record<string, HclValue> = {};
  for (const v of parseHcl(hcl, {}, true).blocks.filter((b) => b.type === 'variable')) {
    if ('default' in v.attrs) defaults[v.labels[0]!] = v.attrs.default!;
  }
  const vars = { ...defaults, ...(variables.trim() ? parseVarFile(variables) : {}) };
  const root = parseHcl(hcl, vars);
  const jobs = root.blocks.filter((b) => b.type === 'job');
  if (jobs.length !== 1) throw new Error(`expected exactly one job block, found ${jobs.length}`);
  const jb = jobs[0]!;
  const name = jb.labels[0];
  if (!name) throw new Error('job block needs a name label');
  const tmpl = fixture<ApiJob>('job-parsed.json');
  const groups = jb.blocks.filter((b) => b.type === 'group');
  if (groups.length === 0) throw new Error(`job "${name}" has no group`);
  return {
    ...tmpl,
    ID: name,
    Name: str(jb.attrs.name) ?? name,
    Type: str(jb.attrs.type) ?? 'service',
    Namespace: str(jb.attrs.namespace) ?? 'default',
    Datacenters: (jb.attrs.datacenters as string[] | undefined) ?? ['*'],
    Meta: meta(jb),
    Constraints: constraints(jb),
    ...periodicAndParameterized(jb),
    TaskGroups: groups.map((g) => toGroup(g, tmpl.TaskGroups![0]!)),
  };
}

/**
 * A `periodic` and a `parameterized` block as Canonicalize leaves them (Enabled true, TimeZone "UTC", Payload
 * "optional" when unset); absent, both stay null as in the template.
 */
function periodicAndParameterized(jb: HclBlock): Record<string, unknown> {
  const p = jb.blocks.find((b) => b.type === 'periodic');
  const d = jb.blocks.find((b) => b.type === 'parameterized');
  const crons = p?.attrs.crons as string[] | undefined;
  return {
    ...(p
      ? {
          Periodic: {
            Enabled: typeof p.attrs.enabled === 'boolean' ? p.attrs.enabled : true,
            Spec: str(p.attrs.cron) ?? crons?.[0] ?? '',
            Specs: crons ?? null,
            SpecType: 'cron',
            ProhibitOverlap: p.attrs.prohibit_overlap === true,
            TimeZone: str(p.attrs.time_zone) ?? 'UTC',
          },
        }
      : {}),
    ...(d
      ? {
          ParameterizedJob: {
            Payload: str(d.attrs.payload) ?? 'optional',
            MetaRequired: (d.attrs.meta_required as string[] | undefined) ?? null,
            MetaOptional: (d.attrs.meta_optional as string[] | undefined) ?? null,
          },
        }
      : {}),
  };
}

function toGroup(g: HclBlock, tmpl: ApiTaskGroup): ApiTaskGroup {
  const gname = g.labels[0];
  if (!gname) throw new Error('group block needs a name label');
  const tasks = g.blocks.filter((b) => b.type === 'task');
  if (tasks.length === 0) throw new Error(`group "${gname}" has no task`);
  const net = g.blocks.find((b) => b.type === 'network');
  const ports = net?.blocks.filter((b) => b.type === 'port') ?? [];
  const resched = g.blocks.find((b) => b.type === 'reschedule');
  const disk = g.blocks.find((b) => b.type === 'ephemeral_disk');
  const volumes = g.blocks.filter((b) => b.type === 'volume');
  const disc = g.blocks.find((b) => b.type === 'disconnect');
  const maxClientDisconnect = str(g.attrs.max_client_disconnect);
  const taskTmpl = (tmpl.Tasks ?? [])[0]!;
  return {
    ...tmpl,
    Name: gname,
    Count: num(g.attrs.count) ?? 1,
    Meta: meta(g),
    Constraints: constraints(g),
    Services: services(g),
    ReschedulePolicy: { ...(tmpl.ReschedulePolicy as object), ...(resched ? reschedulePolicy(resched) : {}) },
    ...(volumes.length
      ? {
          Volumes: Object.fromEntries(
            volumes.map((v) => [
              v.labels[0]!,
              {
                Name: v.labels[0]!,
                Type: str(v.attrs.type) ?? 'host',
                Source: str(v.attrs.source) ?? '',
                ReadOnly: v.attrs.read_only === true,
                AccessMode: '',
                AttachmentMode: '',
                MountOptions: null,
                PerAlloc: false,
              },
            ]),
          ),
        }
      : {}),
    ...(disk
      ? {
          EphemeralDisk: {
            Sticky: disk.attrs.sticky === true,
            Migrate: disk.attrs.migrate === true,
            SizeMB: num(disk.attrs.size) ?? 300,
          },
        }
      : {}),
    ...(disc ? { Disconnect: disconnectStrategy(disc) } : {}),
    ...(maxClientDisconnect ? { MaxClientDisconnect: durationNs(maxClientDisconnect) } : {}),
    Networks: net
      ? [
          {
            ...(tmpl.Networks ?? [])[0]!,
            Mode: str(net.attrs.mode) ?? 'host',
            DynamicPorts: ports
              .filter((p) => p.attrs.static === undefined)
              .map((p) => ({
                Label: p.labels[0]!,
                Value: 0,
                To: num(p.attrs.to) ?? 0,
                HostNetwork: 'default',
                IgnoreCollision: false,
              })),
            ReservedPorts: ports
              .filter((p) => p.attrs.static !== undefined)
              .map((p) => ({
                Label: p.labels[0]!,
                Value: num(p.attrs.static) ?? 0,
                To: num(p.attrs.to) ?? 0,
                HostNetwork: 'default',
                IgnoreCollision: false,
              })),
          },
        ]
      : null,
    Tasks: tasks.map((t) => {
      const driver = str(t.attrs.driver);
      if (!driver) throw new Error(`task "${t.labels[0] ?? ''}" needs a driver`);
      const res = t.blocks.find((b) => b.type === 'resources');
      const resources = {
        ...(taskTmpl['Resources'] as object),
        ...(res ? { CPU: num(res.attrs.cpu) ?? 100, MemoryMB: num(res.attrs.memory) ?? 300 } : {}),
      };
      return {
        ...taskTmpl,
        Name: t.labels[0]!,
        Driver: driver,
        Config: t.blocks.find((b) => b.type === 'config')?.attrs ?? null,
        Resources: resources,
        Services: services(t, t.labels[0]),
      };
    }),
  };
}

/** A `reschedule` block as Canonicalize leaves it: durations in ns; unset keys keep the template's (30s, exponential, 1h). */
/** A `disconnect` block as the canonical job holds it: durations in ns, Replace true and best_score when unset. */
function disconnectStrategy(b: HclBlock): Record<string, unknown> {
  const lost = str(b.attrs.lost_after);
  const stop = str(b.attrs.stop_on_client_after);
  return {
    LostAfter: lost ? durationNs(lost) : null,
    StopOnClientAfter: stop ? durationNs(stop) : null,
    Replace: typeof b.attrs.replace === 'boolean' ? b.attrs.replace : true,
    Reconcile: str(b.attrs.reconcile) ?? 'best_score',
  };
}

/** "2m" -> nanoseconds (Go time.Duration in JSON); an error naming the value Nomad would refuse. */
function durationNs(s: string): number {
  const ms = parseGoDuration(s);
  if (ms === undefined) throw new Error(`invalid duration "${s}"`);
  return ms * 1e6;
}

function reschedulePolicy(b: HclBlock): Record<string, unknown> {
  const ns = (v: HclValue | undefined): number | undefined => {
    const ms = typeof v === 'string' ? parseGoDuration(v) : undefined;
    return ms === undefined ? undefined : ms * 1e6;
  };
  const set = {
    Interval: ns(b.attrs.interval),
    Delay: ns(b.attrs.delay),
    DelayFunction: str(b.attrs.delay_function),
    MaxDelay: ns(b.attrs.max_delay),
  };
  return {
    Attempts: num(b.attrs.attempts) ?? 0,
    Unlimited: b.attrs.unlimited === true,
    ...Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)),
  };
}

const str = (v: HclValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: HclValue | undefined): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;

/**
 * A group's or task's `service` blocks as Nomad's parse gives them (the fields the harness reads; real 1.9.7 parse of
 * examples/jobs/whole-alloc.nomad.hcl): Provider defaults to consul, check durations in ns, null when there are none.
 */
function services(b: HclBlock, task?: string): Record<string, unknown>[] | null {
  const dur = (v: HclValue | undefined): number => (typeof v === 'string' ? (parseGoDuration(v) ?? 0) * 1e6 : 0);
  const out = b.blocks
    .filter((x) => x.type === 'service')
    .map((s) => ({
      Name: str(s.attrs.name) ?? '',
      PortLabel: str(s.attrs.port) ?? '',
      Provider: str(s.attrs.provider) ?? 'consul',
      TaskName: task ?? '',
      Tags: Array.isArray(s.attrs.tags) ? s.attrs.tags.filter((x): x is string => typeof x === 'string') : null,
      AddressMode: '',
      Address: '',
      Checks: s.blocks
        .filter((c) => c.type === 'check')
        .map((c) => ({
          Name: str(c.attrs.name) ?? '',
          Type: str(c.attrs.type) ?? '',
          Path: str(c.attrs.path) ?? '',
          PortLabel: '',
          Interval: dur(c.attrs.interval),
          Timeout: dur(c.attrs.timeout),
          TaskName: '',
        })),
    }));
  return out.length ? out : null;
}

/**
 * A job's or group's `constraint` blocks as Nomad's parse gives them (api.Constraint: LTarget, RTarget, Operand, the
 * operator "=" when unset); null when there are none, as in the parse template.
 */
function constraints(b: HclBlock): { LTarget: string; RTarget: string; Operand: string }[] | null {
  const out = b.blocks
    .filter((x) => x.type === 'constraint')
    .map((c) => ({
      LTarget: str(c.attrs.attribute) ?? '',
      RTarget: str(c.attrs.value) ?? '',
      Operand: str(c.attrs.operator) ?? '=',
    }));
  return out.length ? out : null;
}

/** A `meta { k = "v" }` block's values (null when absent, as Nomad's parse gives it). */
function meta(b: HclBlock): Record<string, string> | null {
  const m = b.blocks.find((x) => x.type === 'meta');
  return m ? Object.fromEntries(Object.entries(m.attrs).map(([k, v]) => [k, String(v)])) : null;
}

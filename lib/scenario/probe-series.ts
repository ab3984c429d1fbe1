// The probe series over a fault window: at a fixed interval, every mapped port of every running alloc of the job is
// probed through its node's host port (HTTP GET or a TCP connect, as http-reachable does), from a machine the fault
// is not hitting. A service none of whose allocs sits on a live client gets a failed sample for that tick, so the
// gap shows. The targets are read again every tick (a drain moves allocs); when Nomad cannot answer (a server
// rebooting) the last view is kept.
import type { AllocSnap } from '../model/evidence.js';
import type { ProbeSample, ProbeSeries } from '../model/cluster-evidence.js';
import type { Lab } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { deadlineIn, sleep } from '../time/deadlines.js';
import { probeKindOf, type ProbeKinds } from '../checks/probe-kind.js';
import { httpProbe, tcpProbe } from '../lab/observe.js';

export interface SeriesTarget {
  /** "<group>/<port label>" */
  service: string;
  allocId: string;
  /** the machine the alloc runs on */
  machine: string;
  host: string;
  port: number;
  kind: 'http' | 'tcp';
}

/**
 * The targets of the running allocs: each probed port through its host address. `machineOf` maps a node ID to its
 * machine, `nodeAddress` a node ID to its address (for a port Nomad gave no HostIP). Pure.
 */
export function seriesTargets(
  allocs: readonly AllocSnap[],
  kinds: ProbeKinds | undefined,
  machineOf: (nodeId: string) => string,
  nodeAddress: (nodeId: string) => string | undefined,
): SeriesTarget[] {
  return allocs
    .filter((a) => a.clientStatus === 'running' && a.desiredStatus === 'run')
    .flatMap((a) =>
      a.ports.flatMap((p): SeriesTarget[] => {
        const kind = probeKindOf(kinds, a.taskGroup, p.label);
        const host = p.hostIp || nodeAddress(a.nodeId);
        if (kind === 'none' || !host) return [];
        return [
          {
            service: `${a.taskGroup}/${p.label}`,
            allocId: a.id,
            machine: machineOf(a.nodeId),
            host,
            port: p.value,
            kind,
          },
        ];
      }),
    );
}

/** The services a job's allocs map and the harness probes (what must keep answering). Pure. */
export function seriesServices(allocs: readonly AllocSnap[], kinds: ProbeKinds | undefined): string[] {
  const out = new Set<string>();
  for (const a of allocs)
    for (const p of a.ports)
      if (probeKindOf(kinds, a.taskGroup, p.label) !== 'none') out.add(`${a.taskGroup}/${p.label}`);
  return [...out];
}

/** The machine to probe from: a server the fault is not hitting, else such a client; undefined when none. Pure. */
export function probeFrom(names: readonly string[], down: ReadonlySet<string>): string | undefined {
  const up = names.filter((n) => !down.has(n));
  return up.find((n) => n.startsWith('server')) ?? up.find((n) => n.startsWith('client'));
}

/** One tick's samples: the probes made, and a failed sample for each service nothing could be probed of. Pure. */
export function tickSamples(
  tick: number,
  atMs: number,
  services: readonly string[],
  made: readonly ProbeSample[],
  skipped: readonly SeriesTarget[],
  from: string | undefined,
): ProbeSample[] {
  const out = [...made];
  for (const service of services) {
    if (made.some((s) => s.service === service)) continue;
    const on = skipped.filter((x) => x.service === service).map((x) => `${x.allocId.slice(0, 8)} on ${x.machine}`);
    const error = !from
      ? 'no machine left to probe from'
      : on.length
        ? `no alloc of it on a live client (${on.join(', ')} under the fault)`
        : 'no running alloc of it';
    out.push({ atMs, tick, service, target: '(none)', from: from ?? '(none)', ok: false, error });
  }
  return out;
}

export interface ProbeSeriesOptions {
  lab: Lab;
  intervalMs: number;
  services: readonly string[];
  /** the targets now (read each tick); a throw keeps the last view */
  targets: (d: Deadline) => Promise<SeriesTarget[]>;
  /** the machines the fault is hitting now: nothing is probed on them or through them */
  down: () => ReadonlySet<string>;
  deadline: Deadline;
}

export interface RunningSeries {
  /** end the series after the tick under way and return it */
  stop(): Promise<ProbeSeries>;
}

/** Start probing now; ticks start every `intervalMs` (a tick that overruns delays the next, never overlaps it). */
export function startProbeSeries(o: ProbeSeriesOptions): RunningSeries {
  const startMs = Date.now();
  const samples: ProbeSample[] = [];
  const stopped = new AbortController();
  const signal = AbortSignal.any([stopped.signal, o.deadline.signal]);
  let last: SeriesTarget[] = [];
  const loop = (async () => {
    for (let tick = 0; !signal.aborted; tick++) {
      const atMs = Date.now();
      const d = deadlineIn(Math.max(1000, Math.min(2 * o.intervalMs, 5000)), o.deadline);
      last = await o.targets(d).catch(() => last);
      const down = o.down();
      const from = probeFrom(Object.keys(o.lab.machines), down);
      const live = from ? last.filter((x) => !down.has(x.machine)) : [];
      const skipped = last.filter((x) => !live.includes(x));
      const made = await Promise.all(
        live.map(async (x): Promise<ProbeSample> => {
          const m = o.lab.machines[from!]!;
          const p = await (x.kind === 'http'
            ? httpProbe(m, `http://${x.host}:${x.port}/`, d)
            : tcpProbe(m, x.host, x.port, d)
          ).catch((err: unknown) => ({
            ok: false,
            error: err instanceof Error ? err.message.split('\n')[0]! : String(err),
          }));
          const target = `${x.allocId.slice(0, 8)} ${x.host}:${x.port} (${x.machine})`;
          return {
            atMs,
            tick,
            service: x.service,
            target,
            from: from!,
            ok: p.ok,
            ...(p.ok ? {} : { error: p.error ?? 'no answer' }),
          };
        }),
      );
      samples.push(...tickSamples(tick, atMs, o.services, made, skipped, from));
      const next = startMs + (tick + 1) * o.intervalMs;
      await sleep(Math.max(0, next - Date.now()), { at: o.deadline.at, signal }).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
      return { intervalMs: o.intervalMs, startMs, endMs: Date.now(), samples, services: [...o.services] };
    },
  };
}

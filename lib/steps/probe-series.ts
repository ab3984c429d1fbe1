// The probe series over a fault window: at a fixed interval, every mapped port of every running alloc of the job is
// probed through its node's host port (HTTP GET or a TCP connect, as http-reachable does), from a machine the fault
// is not hitting. Probes overlap (each has its own deadline, longer than the interval) and keep their latency, so a
// slow answer under emulation counts at the tick it was sent; a probe given up on is silence, not a refusal
// (lib/checks/continuity.ts). A service none of whose allocs sits on a live client gets a failed sample for that
// tick, so the gap shows. The targets are read again in the background (a drain moves allocs); when Nomad cannot
// answer (a server rebooting) the last view is kept.
import type { AllocSnap } from '../model/evidence.js';
import type { ProbeSample, ProbeSeries } from '../model/cluster-evidence.js';
import type { Lab } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { deadlineIn, sleep } from '../time/deadlines.js';
import { probeKindOf, type ProbeKinds } from '../checks/probe-kind.js';
import { HTTP_PROBE_TIMEOUT_S, httpProbe, tcpProbe } from '../lab/observe.js';
import { outcomeOfError, seconds } from '../checks/continuity.js';

interface SeriesTarget {
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

/**
 * The failed samples of a tick for each service none of whose allocs could be probed (evidence of down: no alloc of it
 * on a live client, or no machine left to probe from). `probed`: the services a probe was sent for. Pure.
 */
export function tickSamples(
  tick: number,
  atMs: number,
  services: readonly string[],
  probed: ReadonlySet<string>,
  skipped: readonly SeriesTarget[],
  from: string | undefined,
): ProbeSample[] {
  const out: ProbeSample[] = [];
  for (const service of services) {
    if (probed.has(service)) continue;
    const on = skipped.filter((x) => x.service === service).map((x) => `${x.allocId.slice(0, 8)} on ${x.machine}`);
    const error = !from
      ? 'no machine left to probe from'
      : on.length
        ? `no alloc of it on a live client (${on.join(', ')} under the fault)`
        : 'no running alloc of it';
    out.push({ atMs, tick, service, target: '(none)', from: from ?? '(none)', ok: false, error, outcome: 'down' });
  }
  return out;
}

/**
 * How long one probe is waited for: longer than the interval (probes overlap, so a slow answer under emulation is
 * still an answer at its tick) and than the probe's own timeout inside the machine, with room for the SSH round trip.
 */
export function probeTimeoutMs(intervalMs: number): number {
  return Math.max(3 * intervalMs, HTTP_PROBE_TIMEOUT_S * 1000 + 5000);
}

/** Probes waiting for an answer at most (each is an SSH channel on the probing machine; sshd allows 10 sessions). */
const MAX_IN_FLIGHT = 6;

/** A probe's outcome from what it returned, or from the error it threw (the harness gave up, SSH failed). Pure. */
export function sampleOf(
  x: SeriesTarget,
  tick: number,
  atMs: number,
  from: string,
  latencyMs: number,
  p: { ok: boolean; error?: string | undefined } | { thrown: string },
  timeoutMs: number,
): ProbeSample {
  const target = `${x.allocId.slice(0, 8)} ${x.host}:${x.port} (${x.machine})`;
  const base = { atMs, tick, service: x.service, target, from, latencyMs };
  if ('thrown' in p)
    return {
      ...base,
      ok: false,
      error: `no answer within ${seconds(timeoutMs)} (the harness gave up on the probe: ${p.thrown})`,
      outcome: 'silent',
    };
  if (p.ok) return { ...base, ok: true, outcome: 'answered' };
  const error = p.error ?? 'no answer';
  return { ...base, ok: false, error, outcome: outcomeOfError(error) };
}

interface ProbeSeriesOptions {
  lab: Lab;
  intervalMs: number;
  services: readonly string[];
  /** the targets now (read in the background, at most one read at a time); a throw keeps the last view */
  targets: (d: Deadline) => Promise<SeriesTarget[]>;
  /** the machines the fault is hitting now: nothing is probed on them or through them */
  down: () => ReadonlySet<string>;
  deadline: Deadline;
}

interface RunningSeries {
  /** stop sending probes, wait for those in flight (each within its deadline) and return the series */
  stop(): Promise<ProbeSeries>;
}

/**
 * Start probing now. A tick starts every `intervalMs` and never waits for the last one: each probe has its own
 * deadline (probeTimeoutMs), longer than the interval, so probes overlap, and its latency is kept. The targets are
 * read again in the background (a drain moves allocs); a tick uses the last view. When MAX_IN_FLIGHT probes still
 * wait, a target's probe is not sent that tick and the sample says so (silence, not evidence of down).
 */
export function startProbeSeries(o: ProbeSeriesOptions): RunningSeries {
  const startMs = Date.now();
  const timeoutMs = probeTimeoutMs(o.intervalMs);
  const samples: ProbeSample[] = [];
  const stopped = new AbortController();
  const signal = AbortSignal.any([stopped.signal, o.deadline.signal]);
  const inFlight = new Set<Promise<void>>();
  let last: SeriesTarget[] = [];
  let reading: Promise<void> | undefined;
  const readTargets = (): Promise<void> => {
    reading ??= o
      .targets(deadlineIn(timeoutMs, o.deadline))
      .then(
        (t) => {
          last = t;
        },
        () => undefined,
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const probe = (x: SeriesTarget, tick: number, atMs: number, from: string): void => {
    const m = o.lab.machines[from]!;
    const d = deadlineIn(timeoutMs, o.deadline);
    const sent = Date.now();
    const p: Promise<void> = (
      x.kind === 'http' ? httpProbe(m, `http://${x.host}:${x.port}/`, d) : tcpProbe(m, x.host, x.port, d)
    )
      .then(
        (r) => ({ ok: r.ok, error: r.error }),
        (err: unknown) => ({ thrown: err instanceof Error ? err.message.split('\n')[0]! : String(err) }),
      )
      .then((r) => {
        samples.push(sampleOf(x, tick, atMs, from, Date.now() - sent, r, timeoutMs));
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const loop = (async () => {
    await readTargets();
    for (let tick = 0; !signal.aborted; tick++) {
      const atMs = Date.now();
      if (tick > 0) void readTargets();
      const down = o.down();
      const from = probeFrom(Object.keys(o.lab.machines), down);
      const live = from ? last.filter((x) => !down.has(x.machine)) : [];
      const skipped = last.filter((x) => !live.includes(x));
      const probed = new Set<string>();
      for (const x of live) {
        probed.add(x.service);
        if (inFlight.size >= MAX_IN_FLIGHT)
          samples.push(
            sampleOf(
              x,
              tick,
              atMs,
              from!,
              0,
              { ok: false, error: `not sent: ${inFlight.size} probes still waiting for an answer` },
              timeoutMs,
            ),
          );
        else probe(x, tick, atMs, from!);
      }
      samples.push(...tickSamples(tick, atMs, o.services, probed, skipped, from));
      const next = startMs + (tick + 1) * o.intervalMs;
      await sleep(Math.max(0, next - Date.now()), { at: o.deadline.at, signal }).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
      await Promise.all([...inFlight]);
      await reading;
      samples.sort((a, b) => a.tick - b.tick || a.atMs - b.atMs);
      return {
        intervalMs: o.intervalMs,
        startMs,
        endMs: Date.now(),
        samples,
        services: [...o.services],
        probeTimeoutMs: timeoutMs,
      };
    },
  };
}

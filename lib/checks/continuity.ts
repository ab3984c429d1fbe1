// Pure: the gaps of a probe series. A service (a group's mapped port) is up at a tick when any probe sent at that tick
// answered, however late (any alloc, through any live client). A run of ticks where none did is a gap, from its first
// such tick to the next tick that answered (or the end of the series), when it holds evidence that the service was
// down: a probe refused, reset or unreachable, an HTTP error, no alloc of it on a live client. A run whose probes
// only went unanswered (no answer within the probe's deadline, or the probe could not be made) says nothing of the
// service, only of a slow machine or link: it is a silence, reported apart, and a gap only once it lasts
// SILENT_GAP_FACTOR times the probe's deadline (nothing answered for that long is down, however slow the lab).
import type { ProbeOutcome, ProbeSample, ProbeSeries } from '../model/cluster-evidence.js';

/** A silence of at least this many probe deadlines counts as a gap. */
const SILENT_GAP_FACTOR = 2;

interface Gap {
  service: string;
  /** Unix ms of the first tick with no answer */
  fromMs: number;
  /** Unix ms of the next tick that answered, or the series' end */
  toMs: number;
  lengthMs: number;
  /** the gap lasted to the end of the series: the service never answered again */
  open: boolean;
  /** the last error seen in the gap (the last evidence of down when there was one), for the reader */
  lastError: string;
  /** what makes it a gap: a probe's evidence of down, or a silence as long as SILENT_GAP_FACTOR deadlines */
  evidence: 'down' | 'silent';
}

interface ServiceContinuity {
  service: string;
  ticks: number;
  /** ticks at which it answered */
  up: number;
  gaps: Gap[];
  /** runs of unanswered ticks with no evidence of down, shorter than the silence bound: not gaps */
  silences: Gap[];
  /** the slowest answer (ms), when any probe recorded its latency */
  slowestMs?: number;
}

/** The probe's deadline of a series: as recorded, else what the harness used before it was recorded. */
export function probeTimeoutOf(series: ProbeSeries): number {
  return series.probeTimeoutMs ?? Math.max(1000, Math.min(2 * series.intervalMs, 5000));
}

/** The silence a series tolerates before it counts as a gap (ms). */
export function silenceBoundOf(series: ProbeSeries): number {
  return SILENT_GAP_FACTOR * probeTimeoutOf(series);
}

/**
 * What a failed probe's error says of the service: refused, reset, unreachable, an HTTP error status or no alloc of
 * it on a live client are evidence of down; a timeout or a probe that could not be made (the harness's deadline, SSH)
 * is silence. curl: exit 7 (could not connect), 52 (empty reply), 56 (reset) are down; 28 (timed out) is silence.
 */
export function outcomeOfError(error: string): Exclude<ProbeOutcome, 'answered'> {
  if (/timed out|no answer within|gave up after|deadline reached|not sent/i.test(error)) return 'silent';
  return /refused|reset|unreachable|no route|couldn't connect|failed to connect|empty reply|^HTTP [45]\d\d|no alloc of it|no running alloc|no machine left/i.test(
    error,
  )
    ? 'down'
    : 'silent';
}

/** A sample's outcome: as recorded, else read from ok and its error (older records). */
function outcomeOf(s: ProbeSample): ProbeOutcome {
  if (s.outcome) return s.outcome;
  return s.ok ? 'answered' : outcomeOfError(s.error ?? 'no answer');
}

/** Every service's ticks, gaps and silences, in the series' service order. */
export function serviceContinuity(series: ProbeSeries): ServiceContinuity[] {
  const services = [...new Set([...series.services, ...series.samples.map((s) => s.service)])];
  const bound = silenceBoundOf(series);
  return services.map((service) => {
    const mine = series.samples.filter((s) => s.service === service);
    const byTick = new Map<number, ProbeSample[]>();
    for (const s of mine) byTick.set(s.tick, [...(byTick.get(s.tick) ?? []), s]);
    const ticks = [...byTick.keys()].sort((a, b) => a - b);
    const gaps: Gap[] = [];
    const silences: Gap[] = [];
    let run: { fromMs: number; lastError: string; lastDown?: string } | undefined;
    let up = 0;
    const close = (toMs: number, open: boolean) => {
      if (!run) return;
      const lengthMs = toMs - run.fromMs;
      const evidence = run.lastDown !== undefined ? 'down' : lengthMs >= bound ? 'silent' : undefined;
      const gap = { service, fromMs: run.fromMs, toMs, lengthMs, open, lastError: run.lastDown ?? run.lastError };
      if (evidence) gaps.push({ ...gap, evidence });
      else silences.push({ ...gap, evidence: 'silent' });
      run = undefined;
    };
    for (const tick of ticks) {
      const probes = byTick.get(tick)!;
      const atMs = Math.min(...probes.map((p) => p.atMs));
      if (probes.some((p) => outcomeOf(p) === 'answered')) {
        up++;
        close(atMs, false);
        continue;
      }
      const line = (p: ProbeSample) => `${p.target} from ${p.from}: ${p.error ?? 'no answer'}`;
      const down = probes.filter((p) => outcomeOf(p) === 'down');
      const err = probes.map(line).join('; ');
      const lastDown = down.length ? down.map(line).join('; ') : run?.lastDown;
      run = {
        fromMs: run?.fromMs ?? atMs,
        lastError: err,
        ...(lastDown !== undefined ? { lastDown } : {}),
      };
    }
    close(series.endMs, true);
    const latencies = mine.filter((s) => outcomeOf(s) === 'answered' && s.latencyMs !== undefined);
    const slowestMs = latencies.length ? Math.max(...latencies.map((s) => s.latencyMs!)) : undefined;
    return { service, ticks: ticks.length, up, gaps, silences, ...(slowestMs !== undefined ? { slowestMs } : {}) };
  });
}

/** "12.5s" */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

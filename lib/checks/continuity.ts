// Pure: the gaps of a probe series. A service (a group's mapped port) is up at a tick when any of its probes at that
// tick answered (any alloc, through any live client); a gap is a run of ticks where none did, from its first failed
// tick to the next tick that answered (or the end of the series when none did again).
import type { ProbeSample, ProbeSeries } from '../model/cluster-evidence.js';

export interface Gap {
  service: string;
  /** Unix ms of the first tick with no answer */
  fromMs: number;
  /** Unix ms of the next tick that answered, or the series' end */
  toMs: number;
  lengthMs: number;
  /** the gap lasted to the end of the series: the service never answered again */
  open: boolean;
  /** the last error seen in the gap, for the reader */
  lastError: string;
}

export interface ServiceContinuity {
  service: string;
  ticks: number;
  /** ticks at which it answered */
  up: number;
  gaps: Gap[];
}

/** Every service's ticks and gaps, in the series' service order. */
export function serviceContinuity(series: ProbeSeries): ServiceContinuity[] {
  const services = [...new Set([...series.services, ...series.samples.map((s) => s.service)])];
  return services.map((service) => {
    const mine = series.samples.filter((s) => s.service === service);
    const byTick = new Map<number, ProbeSample[]>();
    for (const s of mine) byTick.set(s.tick, [...(byTick.get(s.tick) ?? []), s]);
    const ticks = [...byTick.keys()].sort((a, b) => a - b);
    const gaps: Gap[] = [];
    let open: { fromMs: number; lastError: string } | undefined;
    let up = 0;
    for (const tick of ticks) {
      const probes = byTick.get(tick)!;
      const atMs = Math.min(...probes.map((p) => p.atMs));
      if (probes.some((p) => p.ok)) {
        up++;
        if (open)
          gaps.push({
            service,
            fromMs: open.fromMs,
            toMs: atMs,
            lengthMs: atMs - open.fromMs,
            open: false,
            lastError: open.lastError,
          });
        open = undefined;
      } else {
        const err = probes.map((p) => `${p.target} from ${p.from}: ${p.error ?? 'no answer'}`).join('; ');
        open = open ? { ...open, lastError: err } : { fromMs: atMs, lastError: err };
      }
    }
    if (open)
      gaps.push({
        service,
        fromMs: open.fromMs,
        toMs: series.endMs,
        lengthMs: series.endMs - open.fromMs,
        open: true,
        lastError: open.lastError,
      });
    return { service, ticks: ticks.length, up, gaps };
  });
}

/** "12.5s" */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

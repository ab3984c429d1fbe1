// Pure: how long after Nomad had an alloc running again the harness noticed it (issue 14). "Running again" is the
// moment the alloc's last task started after the disruption (its first `Started` task event since then, on the
// client's clock); "noticed" is when the settle wait first judged that alloc's place settled (the harness's clock).
// The client's clock offset, measured over SSH, puts both on the harness's clock.
import type { AllocSnap } from '../model/evidence.js';
import type { ClockOffset } from '../lab/parse-observe.js';

/** One restored alloc's notice latency. */
export interface RestoreNotice {
  allocId: string;
  name: string;
  /** the last task's first Started after the disruption, on the harness's clock (Unix ms) */
  runningAtMs: number;
  /** when the settle wait saw it (Unix ms) */
  noticedAtMs: number;
  latencyMs: number;
}

/**
 * Every alloc noticed running again in place (not a replacement) with a Started event of each task since the
 * disruption; others are left out (failed, replaced, tasks kept running: nothing restarted to be noticed).
 */
export function restoreNotices(
  allocs: readonly AllocSnap[], noticedAtMs: Readonly<Record<string, number>>, sinceMs: number, clock: ClockOffset,
): RestoreNotice[] {
  const out: RestoreNotice[] = [];
  for (const [id, noticed] of Object.entries(noticedAtMs)) {
    const a = allocs.find((x) => x.id === id);
    const tasks = a ? Object.values(a.tasks) : [];
    if (!a || a.clientStatus !== 'running' || tasks.length === 0) continue;
    // Note: task event times are the client's; the disruption's moment is the harness's
    const starts = tasks.map((t) => t.events.find((e) => e.type === 'Started' && e.timeMs - clock.offsetMs >= sinceMs)?.timeMs);
    if (starts.some((s) => s === undefined)) continue;
    const runningAtMs = Math.max(...(starts as number[])) - clock.offsetMs;
    out.push({ allocId: id, name: a.name, runningAtMs, noticedAtMs: noticed, latencyMs: Math.round(noticed - runningAtMs) });
  }
  return out.sort((x, y) => x.name.localeCompare(y.name));
}

/** The property's value: `web[0] 412 ms, web[1] 380 ms (client clock +230 ms ± 40 ms)`; undefined without notices. */
export function formatRestoreNotices(n: readonly RestoreNotice[], clock: ClockOffset): string | undefined {
  if (n.length === 0) return undefined;
  const sign = clock.offsetMs >= 0 ? '+' : '';
  const each = n.map((x) => `${x.name.replace(/^.*\.(?=[^.]+\[\d+\]$)/, '')} ${x.latencyMs} ms`).join(', ');
  return `${each} (client clock ${sign}${clock.offsetMs} ms ± ${clock.uncertaintyMs} ms)`;
}

// Check: the job's service kept answering through the whole fault window: every mapped port, probed through every live
// client at a fixed interval, had no gap (or none as long as reboot.max_gap).
import { defineCheck, needing } from './define.js';
import { judgement, iso } from './result.js';
import { hitWholeLab } from './across-nodes.js';
import type { Judgement } from '../model/check.js';
import type { ClusterEvidence, ProbeSeries } from '../model/cluster-evidence.js';
import { probeTimeoutOf, seconds, serviceContinuity, silenceBoundOf } from './continuity.js';

export const SERVICE_CONTINUITY = defineCheck<ClusterEvidence>({
  id: 'service-continuity',
  title: 'Service continuity',
  passesWhen:
    'every port the job maps answered through some live client at every tick of the probe series over the fault window, or stopped answering for less than `reboot.max_gap` at a time',
  details:
    "every port the job maps answered through some live client at every tick of the probe series over the fault window (probes overlap: one sent at a tick counts for it however late it answers), or stopped answering for less than `reboot.max_gap` at a time (default: no gap at all). A run of ticks without an answer is a gap when a probe in it was refused, reset or unreachable, got an HTTP error, or found no alloc on a live client; a run where the probes only got no answer within their deadline is reported as a silence and counts as a gap only once it lasts twice that deadline. Skipped, with the gaps measured, when the lab's only client is hit",
  judge: needing(
    (e: ClusterEvidence) => e.series,
    'no probe series was recorded (the job maps no port the harness probes)',
  )(judgeContinuity),
});

/** Every port's gaps and silences over the series, held to `reboot.max_gap` (see the check's details). */
function judgeContinuity(s: ProbeSeries, e: ClusterEvidence): Judgement {
  const all = serviceContinuity(s);
  const window = `${iso(s.startMs)} to ${iso(s.endMs)} (${seconds(s.endMs - s.startMs)}, every ${seconds(s.intervalMs)})`;
  const deadline = seconds(probeTimeoutOf(s));
  const evidence = [
    `series: ${window}, ${s.samples.length} probes, each given ${deadline} to answer; a silence counts as a gap from ${seconds(silenceBoundOf(s))}`,
    ...all.map(
      (c) =>
        `${c.service}: answered at ${c.up} of ${c.ticks} ticks, ${c.gaps.length} gap${c.gaps.length === 1 ? '' : 's'}, ${c.silences.length} silence${c.silences.length === 1 ? '' : 's'}${c.slowestMs !== undefined ? `; slowest answer ${seconds(c.slowestMs)}` : ''}`,
    ),
    ...all.flatMap((c) =>
      c.gaps.map(
        (g) =>
          `gap ${c.service} ${iso(g.fromMs)} for ${seconds(g.lengthMs)}${g.open ? ' (never answered again)' : ''}${g.evidence === 'silent' ? ' (silent throughout)' : ''}: ${g.lastError}`,
      ),
    ),
    ...all.flatMap((c) =>
      c.silences.map(
        (g) =>
          `silence ${c.service} ${iso(g.fromMs)} for ${seconds(g.lengthMs)}: no answer within ${deadline}, no evidence of down (not a gap): ${g.lastError}`,
      ),
    ),
  ];
  const empty = all.filter((c) => c.ticks === 0);
  if (all.length === 0 || empty.length === all.length)
    return judgement('failed', `the probe series holds no probe (${window})`, evidence);
  // one client cannot keep a service up through its own fault: the gap is measured, not judged
  const clients = Number(e.topology.split('+')[1]);
  const whole = hitWholeLab(e);
  if (whole || (clients === 1 && e.turns.some((t) => t.role === 'client'))) {
    const longest = all.flatMap((c) => c.gaps).sort((a, b) => b.lengthMs - a.lengthMs)[0];
    const gap = longest ? `the longest gap ${seconds(longest.lengthMs)}` : 'no gap';
    return judgement(
      'skipped',
      whole
        ? `a fault on every machine at once leaves no instance to serve (${gap}; see the evidence): allocs-followed judges the return`
        : `a lab of one client cannot serve through that client's fault (${gap}; see the evidence)`,
      evidence,
    );
  }
  const limit = e.maxGapMs;
  const bad = all.flatMap((c) => c.gaps).filter((g) => g.open || g.lengthMs >= limit);
  const longest = all.flatMap((c) => c.gaps).sort((a, b) => b.lengthMs - a.lengthMs)[0];
  const allowed = limit > 0 ? `shorter than ${seconds(limit)} (reboot.max_gap)` : 'none (reboot.max_gap 0)';
  if (bad.length) {
    const g = bad.sort((a, b) => b.lengthMs - a.lengthMs)[0]!;
    return judgement(
      'failed',
      `${g.service} stopped answering for ${seconds(g.lengthMs)} from ${iso(g.fromMs)}${g.open ? ', and never again' : ''}; gaps allowed: ${allowed}`,
      evidence,
    );
  }
  const silences = all.flatMap((c) => c.silences).sort((a, b) => b.lengthMs - a.lengthMs);
  const quiet = silences.length
    ? `; ${silences.length} silence${silences.length === 1 ? '' : 's'} with no evidence of down (no answer within ${deadline}; the longest ${seconds(silences[0]!.lengthMs)})`
    : '';
  return judgement(
    'passed',
    longest
      ? `every port answered but for gaps ${allowed}; the longest ${seconds(longest.lengthMs)} (${longest.service})${quiet}`
      : `every port answered at every tick${quiet ? ` but in silences${quiet.replace(/^;/, ':')}` : ''} (${all.map((c) => c.service).join(', ')})`,
    evidence,
  );
}

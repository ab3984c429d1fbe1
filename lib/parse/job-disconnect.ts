// Pure: a task group's disconnect fields from Nomad's job JSON (`nomad job run -output`, /v1/jobs/parse, /v1/job/:id).
// Nomad writes durations as integer nanoseconds (Go time.Duration), unset pointers as null; `-output` leaves the
// block's Replace and Reconcile null where the job did not set them, the API's canonical job fills in true and
// "best_score" (api.DisconnectStrategy.Canonicalize).
import {
  disconnectLine,
  effectiveDisconnect,
  type DisconnectFields,
  type DisconnectPolicy,
} from '../model/disconnect.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
/** Nanoseconds -> ms; undefined for null, absent or not a number. */
const nsToMs = (v: unknown): number | undefined => (typeof v === 'number' ? Math.round(v / 1e6) : undefined);

/** One group's disconnect fields (`TaskGroups[i]` of the job JSON); only what the job sets is present. */
export function groupDisconnectFields(group: Obj): DisconnectFields {
  const out: DisconnectFields = {};
  const d = obj(group['Disconnect']);
  if (d) {
    const lost = nsToMs(d['LostAfter']);
    const stop = nsToMs(d['StopOnClientAfter']);
    out.block = {
      ...(lost !== undefined ? { lostAfterMs: lost } : {}),
      ...(stop !== undefined ? { stopOnClientAfterMs: stop } : {}),
      ...(typeof d['Replace'] === 'boolean' ? { replace: d['Replace'] } : {}),
      ...(typeof d['Reconcile'] === 'string' && d['Reconcile'] ? { reconcile: d['Reconcile'] } : {}),
    };
  }
  const max = nsToMs(group['MaxClientDisconnect']);
  if (max !== undefined) out.maxClientDisconnectMs = max;
  const stopAfter = nsToMs(group['StopAfterClientDisconnect']);
  if (stopAfter !== undefined) out.stopAfterClientDisconnectMs = stopAfter;
  if (group['PreventRescheduleOnLost'] === true) out.preventRescheduleOnLost = true;
  return out;
}

/** Every group's policy as the Nomad of `version` ("Nomad v1.10.5") applies it; none when the version is unreadable. */
export function jobDisconnectPolicies(
  groups: readonly { name: string; disconnect: DisconnectFields }[],
  version: string,
): DisconnectPolicy[] {
  const line = disconnectLine(version);
  return line ? groups.map((g) => effectiveDisconnect(g.name, g.disconnect, line)) : [];
}

/** The shortest lost_after of the job's groups, in seconds (0 when a group has none: its allocs are lost at once). */
export function shortestLostAfterS(policies: readonly DisconnectPolicy[]): number {
  return policies.length ? Math.min(...policies.map((p) => p.lostAfterMs)) / 1000 : 0;
}

/** One line per group for the report's facts: "web: disconnect { lost_after = "2m" } (Nomad 1.10+)". */
export function disconnectFact(policies: readonly DisconnectPolicy[]): string | undefined {
  const lines = policies
    .filter((p) => p.written || p.ignored.length)
    .map((p) => {
      const ignored = p.ignored.length ? `; ignored by Nomad 1.10+: ${p.ignored.join(', ')}` : '';
      return `${p.group}: ${p.written || 'none'}${ignored}`;
    });
  return lines.length ? lines.join(' | ') : undefined;
}

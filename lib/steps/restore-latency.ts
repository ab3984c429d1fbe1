// Pure: how long after Nomad had an alloc running again the harness noticed it. "Running again" is the
// moment the alloc's last task started after the disruption (its first `Started` task event since then, on the
// client's clock); "noticed" is the first of: the event stream delivering an update of that alloc that shows it
// (the recorder stamps every frame on arrival), and the settle wait's read that first judged its place settled (the
// harness's clock). The client's clock offset, measured over SSH when the first alloc was noticed, puts both on the
// harness's clock.
import type { AllocSnap } from '../model/evidence.js';
import type { ClockOffset } from '../parse/host-observe.js';
import type { ReceivedEvent } from '../checks/transitions.js';

/** How the harness first saw an alloc running again. */
type NoticedVia = 'event stream' | 'settle wait';

/** One restored alloc's notice latency. */
interface RestoreNotice {
  allocId: string;
  name: string;
  /** the last task's first Started after the disruption, on the harness's clock (Unix ms) */
  runningAtMs: number;
  /** when the harness first saw it (Unix ms) */
  noticedAtMs: number;
  latencyMs: number;
  via: NoticedVia;
  /** the settle wait's own latency when the stream was first (ms) */
  settleLatencyMs?: number;
  /**
   * Nomad's own part: from Started (client) to the server recording the update the stream delivered (its ModifyTime,
   * server clock), both on the harness's clock; the rest of latencyMs is the harness's part. Only via the stream.
   */
  nomadMs?: number;
}

/** When the event stream first showed an alloc running again: arrival (harness clock) and the alloc's ModifyTime (server clock, ms). */
interface StreamNotice {
  atMs: number;
  modifyTimeMs?: number;
}

type Obj = Record<string, unknown>;

/** The moment (client clock, ms) each given task first Started at or after `sinceClientMs`, from a task-state map. */
function startsSince(
  taskStates: Record<string, { events: { type: string; timeMs: number }[] }>,
  tasks: readonly string[],
  sinceClientMs: number,
): number[] | undefined {
  const out: number[] = [];
  for (const task of tasks) {
    const at = taskStates[task]?.events.find((e) => e.type === 'Started' && e.timeMs >= sinceClientMs)?.timeMs;
    if (at === undefined) return undefined;
    out.push(at);
  }
  return out;
}

/**
 * When the event stream first delivered each alloc running with every one of its tasks started since the disruption
 * (`tasks`: the alloc's task names). Frames arrive in order; the first such frame counts. Unix ms on the harness's clock.
 */
export function streamNotices(
  received: readonly ReceivedEvent[],
  tasks: Readonly<Record<string, readonly string[]>>,
  sinceMs: number,
  clock: ClockOffset,
): Record<string, StreamNotice> {
  const out: Record<string, StreamNotice> = {};
  for (const { receivedAtMs, event } of received) {
    if (event.Topic !== 'Allocation' || !(event.Key in tasks) || event.Key in out) continue;
    const a = event.Payload['Allocation'] as Obj | undefined;
    if (!a || a['ClientStatus'] !== 'running' || a['DesiredStatus'] !== 'run') continue;
    const states: Record<string, { events: { type: string; timeMs: number }[] }> = {};
    for (const [task, st] of Object.entries((a['TaskStates'] ?? {}) as Record<string, Obj>)) {
      const events = ((st['Events'] ?? []) as Obj[]).map((e) => ({
        type: typeof e['Type'] === 'string' ? e['Type'] : '',
        timeMs: typeof e['Time'] === 'number' ? e['Time'] / 1e6 : 0,
      }));
      states[task] = { events };
    }
    if (!startsSince(states, tasks[event.Key]!, sinceMs + clock.offsetMs)) continue;
    const modified = a['ModifyTime'];
    out[event.Key] = {
      atMs: receivedAtMs,
      ...(typeof modified === 'number' && modified > 0 ? { modifyTimeMs: modified / 1e6 } : {}),
    };
  }
  return out;
}

/**
 * Every alloc noticed running again in place (not a replacement) with a Started event of each task since the
 * disruption; others are left out (failed, replaced, tasks kept running: nothing restarted to be noticed).
 * `streamAt` (from streamNotices) wins where it is earlier than the settle wait's notice.
 */
export function restoreNotices(
  allocs: readonly AllocSnap[],
  noticedAtMs: Readonly<Record<string, number>>,
  sinceMs: number,
  clock: ClockOffset,
  streamAt: Readonly<Record<string, StreamNotice>> = {},
  serverClock?: ClockOffset,
): RestoreNotice[] {
  const out: RestoreNotice[] = [];
  for (const [id, settleAt] of Object.entries(noticedAtMs)) {
    const a = allocs.find((x) => x.id === id);
    const names = a ? Object.keys(a.tasks) : [];
    if (!a || a.clientStatus !== 'running' || names.length === 0) continue;
    // Note: task event times are the client's; the disruption's moment is the harness's
    const starts = startsSince(a.tasks, names, sinceMs + clock.offsetMs);
    if (!starts) continue;
    const runningAtMs = Math.max(...starts) - clock.offsetMs;
    const stream = streamAt[id];
    const viaStream = stream !== undefined && stream.atMs < settleAt;
    const noticed = viaStream ? stream.atMs : settleAt;
    const recordedAtMs =
      viaStream && serverClock && stream.modifyTimeMs !== undefined
        ? stream.modifyTimeMs - serverClock.offsetMs
        : undefined;
    out.push({
      allocId: id,
      name: a.name,
      runningAtMs,
      noticedAtMs: noticed,
      latencyMs: Math.round(noticed - runningAtMs),
      via: viaStream ? 'event stream' : 'settle wait',
      ...(viaStream ? { settleLatencyMs: Math.round(settleAt - runningAtMs) } : {}),
      ...(recordedAtMs !== undefined ? { nomadMs: Math.round(recordedAtMs - runningAtMs) } : {}),
    });
  }
  return out.sort((x, y) => x.name.localeCompare(y.name));
}

/**
 * The property's value: `web[0] 212 ms, web[1] 180 ms (client clock +230 ms ± 40 ms; seen first by the event stream;
 * the settle wait's read: 412 ms, 380 ms; of it Nomad's (Started to the server's record, server clock -20 ms ± 30 ms):
 * 150 ms, 120 ms)`; undefined without notices.
 */
export function formatRestoreNotices(
  n: readonly RestoreNotice[],
  clock: ClockOffset,
  serverClock?: ClockOffset,
): string | undefined {
  if (n.length === 0) return undefined;
  const sign = clock.offsetMs >= 0 ? '+' : '';
  const short = (x: RestoreNotice) => x.name.replace(/^.*\.(?=[^.]+\[\d+\]$)/, '');
  const each = n.map((x) => `${short(x)} ${x.latencyMs} ms`).join(', ');
  const via = [...new Set(n.map((x) => x.via))];
  const how =
    via.length === 1
      ? `seen first by the ${via[0]}`
      : `seen first by ${n.map((x) => `${short(x)}: the ${x.via}`).join(', ')}`;
  const settle = n.some((x) => x.settleLatencyMs !== undefined)
    ? `; the settle wait's read: ${n.map((x) => `${x.settleLatencyMs ?? x.latencyMs} ms`).join(', ')}`
    : '';
  const sc =
    serverClock &&
    `server clock ${serverClock.offsetMs >= 0 ? '+' : ''}${serverClock.offsetMs} ms ± ${serverClock.uncertaintyMs} ms`;
  const nomad =
    sc && n.some((x) => x.nomadMs !== undefined)
      ? `; of it Nomad's (Started to the server's record of it, ${sc}): ${n.map((x) => (x.nomadMs === undefined ? '?' : `${x.nomadMs} ms`)).join(', ')}`
      : '';
  return `${each} (client clock ${sign}${clock.offsetMs} ms ± ${clock.uncertaintyMs} ms; ${how}${settle}${nomad})`;
}

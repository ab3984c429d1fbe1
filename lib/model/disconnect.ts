// The ground floor: a task group's policy for a client the servers stop hearing from, as the Nomad line running it
// applies it. Imports nothing.
//
// Nomad 1.8 added the group's `disconnect {}` block (lost_after, replace, reconcile, stop_on_client_after) and kept
// the older group fields; 1.8 and 1.9 honour both, the older ones first (nomad/structs TaskGroup.GetDisconnectLostTimeout,
// Replace, GetDisconnectStopTimeout at v1.9.7). 1.10 ignores the older fields with a warning (GH-25284; the same
// functions at v1.10.5 read only the block).

/** The Nomad lines that read a group's disconnect fields differently. */
type DisconnectLine = 'before-1.10' | '1.10+';

/** A group's disconnect fields as the job JSON holds them (durations in ms; absent: not set in the job). */
export interface DisconnectFields {
  /** `disconnect {}` (JSON `Disconnect`) */
  block?: { lostAfterMs?: number; stopOnClientAfterMs?: number; replace?: boolean; reconcile?: string };
  /** `max_client_disconnect` (JSON `MaxClientDisconnect`) */
  maxClientDisconnectMs?: number;
  /** `stop_after_client_disconnect` (JSON `StopAfterClientDisconnect`) */
  stopAfterClientDisconnectMs?: number;
  /** `prevent_reschedule_on_lost` (JSON `PreventRescheduleOnLost`) */
  preventRescheduleOnLost?: boolean;
}

/** What Nomad does with one group's allocs when their client goes silent, on one Nomad line. */
export interface DisconnectPolicy {
  group: string;
  line: DisconnectLine;
  /** how long an alloc stays `unknown` before it is lost; 0: lost as soon as the node is marked down */
  lostAfterMs: number;
  /** the client stops the allocs itself after this long without the servers */
  stopOnClientAfterMs?: number;
  /** the scheduler places a replacement while the alloc is unknown (Nomad's default: true) */
  replace: boolean;
  /** which alloc survives a reconnect when a replacement runs: best_score (default), keep_original, ... */
  reconcile: string;
  /** how the job wrote it, e.g. `disconnect { lost_after = "5m" }` or `max_client_disconnect = "5m"`; "" when unset */
  written: string;
  /** fields the job sets that this line ignores, e.g. `max_client_disconnect = "5m"` on 1.10+ */
  ignored: string[];
}

/** The line of a `nomad version` first line or a bare version ("Nomad v1.10.5", "1.9.7"); undefined when unreadable. */
export function disconnectLine(version: string): DisconnectLine | undefined {
  const m = /(\d+)\.(\d+)\.\d+/.exec(version);
  if (!m) return undefined;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 1 || (major === 1 && minor >= 10) ? '1.10+' : 'before-1.10';
}

/** "5m", "90s", "1h30m", "250ms": a duration as a job file would write it. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms % 1000 !== 0) return `${ms}ms`;
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const out = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
  return out || '0s';
}

const dur = (ms: number): string => `"${formatDuration(ms)}"`;

/** The policy one Nomad line applies to a group with these fields (Nomad's defaults where the job sets nothing). */
export function effectiveDisconnect(group: string, f: DisconnectFields, line: DisconnectLine): DisconnectPolicy {
  const b = f.block ?? {};
  const legacy: string[] = [];
  if (f.maxClientDisconnectMs !== undefined) legacy.push(`max_client_disconnect = ${dur(f.maxClientDisconnectMs)}`);
  if (f.stopAfterClientDisconnectMs !== undefined)
    legacy.push(`stop_after_client_disconnect = ${dur(f.stopAfterClientDisconnectMs)}`);
  if (f.preventRescheduleOnLost) legacy.push('prevent_reschedule_on_lost = true');
  const blockParts: string[] = [];
  if (b.lostAfterMs) blockParts.push(`lost_after = ${dur(b.lostAfterMs)}`);
  if (b.stopOnClientAfterMs !== undefined) blockParts.push(`stop_on_client_after = ${dur(b.stopOnClientAfterMs)}`);
  if (b.replace !== undefined) blockParts.push(`replace = ${b.replace}`);
  if (b.reconcile) blockParts.push(`reconcile = "${b.reconcile}"`);
  const blockText = f.block ? `disconnect { ${blockParts.join(', ')} }`.replace('{  }', '{}') : '';
  const reconcile = b.reconcile || 'best_score';
  if (line === '1.10+') {
    return {
      group,
      line,
      lostAfterMs: b.lostAfterMs ?? 0,
      ...(b.stopOnClientAfterMs !== undefined ? { stopOnClientAfterMs: b.stopOnClientAfterMs } : {}),
      replace: b.replace ?? true,
      reconcile,
      written: blockText,
      ignored: legacy,
    };
  }
  // Note: before 1.10 the older fields win over the block's (and the job validator refuses both set at once).
  const stop = f.stopAfterClientDisconnectMs ?? b.stopOnClientAfterMs;
  return {
    group,
    line,
    lostAfterMs: f.maxClientDisconnectMs ?? b.lostAfterMs ?? 0,
    ...(stop !== undefined ? { stopOnClientAfterMs: stop } : {}),
    replace: f.preventRescheduleOnLost ? false : (b.replace ?? true),
    reconcile,
    written: [blockText, ...legacy].filter(Boolean).join('; '),
    ignored: [],
  };
}

/** Does the group keep its allocs through a silent client (as `unknown`) instead of losing them at once? */
export function keepsAllocsThroughDisconnect(p: DisconnectPolicy | undefined): boolean {
  return !!p && p.lostAfterMs > 0;
}

// Subscribe to Nomad's event stream (GET /v1/event/stream) and keep it open across drops: when the server or the
// tunnel breaks the connection, reconnect from the last index seen (bounded back-off, a deadline for the outage,
// every reconnect logged). Stops when the signal aborts or close() is called. The token goes in X-Nomad-Token only.
import { performance } from 'node:perf_hooks';
import { HarnessError } from '../errors.js';
import { silentLogger, type Logger } from '../log/events.js';
import { NomadApiError } from './errors.js';
import { EventStreamParser, type StreamEvent } from '../parse/event-stream-frames.js';
import type { StreamResponse, Transport } from './transport.js';

/** Pauses between reconnect attempts; the last repeats (bounded back-off). */
const RECONNECT_BACKOFF_MS: readonly number[] = [250, 500, 1000, 2000, 5000];
/** Give up after this long without a connection (a reboot of the server VM takes about a minute under TCG). */
const DEFAULT_RECONNECT_WITHIN_MS = 10 * 60_000;
/** Nomad sends `{}` every 30 s (ndjson.go); nothing at all for longer means a dead (half-open) connection. */
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

/** What to subscribe to, where the events go, and how hard to try when the connection drops. */
export interface EventStreamOptions {
  transport: Transport;
  /** e.g. `Allocation:<jobID>`, `Node:<nodeID>`, `Job:<jobID>` (repeated `topic` params) */
  topics: readonly string[];
  /** ACL SecretID: sent as X-Nomad-Token, never logged */
  token?: string;
  namespace?: string;
  region?: string;
  /** first raft index wanted (0 = what the server still buffers) */
  index?: number;
  /** the run's signal: aborting it ends the subscription */
  signal: AbortSignal;
  /** called for every frame of events, in order, each event once (de-duplicated across reconnects) */
  onEvents: (index: number, events: StreamEvent[]) => void;
  onHeartbeat?: () => void;
  logger?: Logger;
  /** performance.now() at run start, for LogEvent.t */
  runStart?: number;
  reconnectWithinMs?: number;
  idleTimeoutMs?: number;
  backoffMs?: readonly number[];
}

/** How a subscription ended. */
export interface StreamEnd {
  reason: 'closed' | 'aborted' | 'gave-up';
  /** why it gave up: the last error */
  error?: string;
  lastIndex: number;
  reconnects: number;
}

/** A running subscription. */
export interface EventSubscription {
  /** settles (never rejects) when the subscription ended */
  done: Promise<StreamEnd>;
  lastIndex(): number;
  /** stop: drops the connection; `done` settles with reason "closed" */
  close(): void;
}

/** The request path with its repeated `topic` params (Transport queries cannot repeat a key). */
export function streamPath(o: Pick<EventStreamOptions, 'topics' | 'namespace' | 'region'>, index: number): string {
  const q = new URLSearchParams();
  if (index > 0) q.append('index', String(index));
  for (const t of o.topics) q.append('topic', t);
  if (o.namespace) q.append('namespace', o.namespace);
  if (o.region) q.append('region', o.region);
  return `/v1/event/stream?${q.toString()}`;
}

/** Open the stream and keep it open until aborted or closed; see the file comment. */
export function subscribeEvents(o: EventStreamOptions): EventSubscription {
  const { transport, logger = silentLogger, runStart = performance.now() } = o;
  const {
    reconnectWithinMs = DEFAULT_RECONNECT_WITHIN_MS,
    idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
    backoffMs = RECONNECT_BACKOFF_MS,
  } = o;
  const stream = transport.stream;
  if (!stream) throw new HarnessError('event stream: this Nomad transport cannot stream (no transport.stream)');
  const stop = new AbortController();
  const signal = AbortSignal.any([o.signal, stop.signal]);
  const seen = new Set<string>();
  let lastIndex = Math.max(0, (o.index ?? 0) - 1);
  let reconnects = 0;
  const t = () => performance.now() - runStart;
  const headers: Record<string, string> = o.token ? { 'X-Nomad-Token': o.token } : {};

  // One connection: read frames until it ends or breaks. Returns true when it delivered anything.
  async function connectOnce(): Promise<boolean> {
    const path = streamPath(o, lastIndex > 0 ? lastIndex + 1 : (o.index ?? 0));
    const conn = new AbortController();
    const t0 = performance.now();
    const connSignal = AbortSignal.any([signal, conn.signal]);
    const res: StreamResponse = await stream!({ method: 'GET', path, headers, signal: connSignal });
    const durationMs = performance.now() - t0;
    logger({ kind: 'http', t: t0 - runStart, method: 'GET', path, status: res.status, durationMs });
    if (res.status < 200 || res.status > 299) {
      let body = '';
      for await (const c of res.chunks) body += c;
      throw new NomadApiError('GET', '/v1/event/stream', res.status, body);
    }
    const parser = new EventStreamParser();
    let delivered = false;
    let idle = setTimeout(() => res.close(), idleTimeoutMs);
    try {
      for await (const chunk of res.chunks) {
        clearTimeout(idle);
        idle = setTimeout(() => res.close(), idleTimeoutMs);
        for (const f of parser.push(chunk)) {
          delivered = true;
          if (f.heartbeat) o.onHeartbeat?.();
          else deliver(f.index, f.events);
        }
      }
      for (const f of parser.end()) if (!f.heartbeat) deliver(f.index, f.events);
    } finally {
      clearTimeout(idle);
      res.close();
    }
    return delivered;
  }

  function deliver(index: number, events: StreamEvent[]): void {
    const fresh = events.filter((e) => {
      const k = `${e.Index}\u0000${e.Topic}\u0000${e.Type}\u0000${e.Key}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    lastIndex = Math.max(lastIndex, index);
    if (fresh.length) o.onEvents(index, fresh);
  }

  async function loop(): Promise<StreamEnd> {
    let outageSince: number | undefined;
    let attempt = 0;
    for (;;) {
      let why: string;
      try {
        const delivered = await connectOnce();
        if (signal.aborted) break;
        why = 'the server ended the stream';
        if (delivered) [outageSince, attempt] = [undefined, 0];
      } catch (err) {
        if (signal.aborted) break;
        why = err instanceof Error ? err.message.split('\n')[0]! : String(err);
        // Note: a 4xx (bad token, bad topic) will not heal by retrying.
        if (err instanceof NomadApiError && err.status >= 400 && err.status < 500) {
          logger({ kind: 'warn', t: t(), message: `event stream: giving up: ${why}` });
          return { reason: 'gave-up', error: why, lastIndex, reconnects };
        }
      }
      outageSince ??= performance.now();
      const down = performance.now() - outageSince;
      if (down >= reconnectWithinMs) {
        const limit = Math.round(reconnectWithinMs / 1000);
        const error = `no connection for ${Math.round(down / 1000)}s (limit ${limit}s); last: ${why}`;
        logger({ kind: 'warn', t: t(), message: `event stream: giving up: ${error}` });
        return { reason: 'gave-up', error, lastIndex, reconnects };
      }
      const pause = backoffMs[Math.min(attempt++, backoffMs.length - 1)] ?? 1000;
      reconnects++;
      const next = `reconnecting from index ${lastIndex + 1} in ${pause} ms (reconnect ${reconnects})`;
      logger({ kind: 'warn', t: t(), message: `event stream: connection lost (${why}); ${next}` });
      const slept = await new Promise<boolean>((resolve) => {
        const onAbort = () => (clearTimeout(timer), resolve(false));
        const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve(true)), pause);
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      if (!slept) break;
    }
    return { reason: stop.signal.aborted ? 'closed' : 'aborted', lastIndex, reconnects };
  }

  return { done: loop(), lastIndex: () => lastIndex, close: () => stop.abort() };
}

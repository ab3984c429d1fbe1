// Pure: Nomad's event stream (GET /v1/event/stream) as it arrives in chunks -> frames of events.
// Format (nomad-reference §1.7; nomad@v1.9.3:nomad/stream/ndjson.go): newline-delimited JSON, one object per line,
// `{"Index":N,"Events":[...]}`; `{}` is a heartbeat (on connect and every 30 s). A chunk may end anywhere in a line.
import { HarnessError } from '../errors.js';

/** One event as Nomad sends it: Topic, Type (the raft message type), Key (object ID), Payload. */
export interface StreamEvent {
  Topic: string;
  Type: string;
  Key: string;
  Namespace?: string;
  FilterKeys?: string[] | null;
  Index: number;
  /** `{"Allocation": {...}}`, `{"Node": {...}}`, `{"Job": {...}}`, ... */
  Payload: Record<string, unknown>;
}

/** One line of the stream: a heartbeat, or the events of one raft index. */
export type StreamFrame = { heartbeat: true } | { heartbeat: false; index: number; events: StreamEvent[] };

/** Longest line kept while waiting for its newline: a bigger one means this is not an event stream. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Feeds chunks in, yields complete frames; keeps the unfinished tail of the last line for the next chunk. */
export class EventStreamParser {
  private tail = '';

  /** Parse every complete line in `chunk` (plus what was held back); throws on a line that is not a frame. */
  push(chunk: string): StreamFrame[] {
    const text = this.tail + chunk;
    const lines = text.split('\n');
    this.tail = lines.pop() ?? '';
    if (this.tail.length > MAX_LINE_BYTES) {
      const what = `a line grew past ${MAX_LINE_BYTES} bytes without a newline`;
      throw new HarnessError(`event stream: ${what}: ${excerpt(this.tail)}`);
    }
    return lines.filter((l) => l.trim() !== '').map(parseFrameLine);
  }

  /** The stream ended: a last line without a newline is still a frame (or an error if it is cut off). */
  end(): StreamFrame[] {
    const rest = this.tail;
    this.tail = '';
    return rest.trim() === '' ? [] : [parseFrameLine(rest)];
  }

  /** Bytes held back waiting for the end of their line. */
  get pending(): number {
    return this.tail.length;
  }
}

/** One NDJSON line -> a frame; an error names what was expected and quotes what came. */
export function parseFrameLine(line: string): StreamFrame {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    const why = (err as Error).message;
    throw new HarnessError(`event stream: expected a JSON object per line, got ${excerpt(line)} (${why})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new HarnessError(`event stream: expected {"Index":N,"Events":[...]} or {}, got ${excerpt(line)}`);
  }
  const o = v as Record<string, unknown>;
  if (Object.keys(o).length === 0) return { heartbeat: true };
  if (typeof o['Index'] !== 'number' || !Array.isArray(o['Events'])) {
    throw new HarnessError(`event stream: expected {"Index":N,"Events":[...]}, got ${excerpt(line)}`);
  }
  return { heartbeat: false, index: o['Index'], events: o['Events'].map((e, i) => toEvent(e, i, line)) };
}

function toEvent(e: unknown, i: number, line: string): StreamEvent {
  const o = (e ?? {}) as Record<string, unknown>;
  const bad = ['Topic', 'Type', 'Key'].filter((k) => typeof o[k] !== 'string');
  if (typeof o['Index'] !== 'number') bad.push('Index');
  if (o['Payload'] === null || typeof o['Payload'] !== 'object') bad.push('Payload');
  if (bad.length) throw new HarnessError(`event stream: event ${i} lacks ${bad.join(', ')}: ${excerpt(line)}`);
  return o as unknown as StreamEvent;
}

function excerpt(s: string): string {
  return JSON.stringify(s.length > 160 ? `${s.slice(0, 160)}…` : s);
}

// Records Nomad's event stream for the run's job and nodes from job registration to the end of the run: every event
// goes to events.ndjson (artifact store, redacted), every alloc/task/node transition onto the HTML timeline, and
// the transitions are there for the checks (transientFailures). Stopping is idempotent and also happens on
// cleanup, so a run that breaks half-way still keeps what was seen.
import type { Nomad } from '../nomad/client.js';
import type { StreamEnd } from '../nomad/event-stream.js';
import type { RunContext } from '../run/context.js';
import { transitionsFrom, type ReceivedEvent, type Transition } from '../checks/transitions.js';
import { timelineFromTransitions } from './stream-timeline.js';

/** The evidence file: one line per frame as received, `{"receivedAtMs":…,"Index":…,"Events":[…]}`. */
const EVENTS_ARTIFACT = 'events.ndjson';

/** Whose events to record: the run's job and its nodes. */
interface RecorderTarget {
  jobId: string;
  nodeIds: readonly string[];
}

/** A running recorder. */
export interface EventRecorder {
  /** the transitions seen so far */
  transitions(): Transition[];
  /** every event received so far */
  events(): ReceivedEvent[];
  /** stop the stream, write events.ndjson, put the transitions on the timeline (idempotent) */
  stop(): Promise<StreamEnd>;
}

/** The topics for one job and its nodes (Allocation and Job filtered by job ID, Node by node ID). */
function topicsFor(t: RecorderTarget): string[] {
  return [`Allocation:${t.jobId}`, `Job:${t.jobId}`, ...t.nodeIds.map((id) => `Node:${id}`)];
}

/** Start recording now; the returned recorder is stopped by `stop()` or, at the latest, by the run's cleanup. */
export function startEventRecorder(
  ctx: RunContext,
  nomad: Nomad,
  target: RecorderTarget,
  { now = () => Date.now() } = {},
): EventRecorder {
  const received: ReceivedEvent[] = [];
  const lines: string[] = [];
  const sub = nomad.events({
    topics: topicsFor(target),
    signal: ctx.deadline.signal,
    logger: ctx.logger,
    onEvents: (index, events) => {
      const at = now();
      lines.push(JSON.stringify({ receivedAtMs: at, Index: index, Events: events }));
      for (const event of events) received.push({ receivedAtMs: at, event });
    },
  });
  let stopped: Promise<StreamEnd> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      sub.close();
      const end = await sub.done;
      ctx.artifact(EVENTS_ARTIFACT, lines.length ? `${lines.join('\n')}\n` : '');
      const transitions = transitionsFrom(received);
      for (const ev of timelineFromTransitions(transitions)) ctx.mark(ev);
      ctx.fact('events.count', received.length);
      ctx.fact('events.reconnects', end.reconnects);
      if (end.reason === 'gave-up') {
        ctx.fact('events.stream', `gave up: ${end.error ?? ''}`);
        ctx.mark({ atMs: now(), lane: 'node', label: 'event stream lost', detail: end.error ?? '', severity: 'warn' });
      }
      return end;
    })());
  ctx.cleanup.defer('stop the Nomad event stream', async () => void (await stop()), { alsoWhenKept: true });
  return { transitions: () => transitionsFrom(received), events: () => [...received], stop };
}

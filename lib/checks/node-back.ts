// Check: the same client node came back and is `ready` again.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement, show } from './result.js';
import type { NodeSnap, RebootEvidence } from '../model/evidence.js';

export const NODE_BACK = defineCheck<RebootEvidence>({
  id: 'node-back',
  title: 'Node back',
  passesWhen: 'the same node ID is `ready` again (re-registered after the reboot)',
  judge: judgeNodeBack,
});

/** Passes when the node seen after the reboot has the same ID as before and status `ready`. */
function judgeNodeBack(e: RebootEvidence): Judgement {
  const b = e.before.node;
  const a = e.after.node;
  const evidence = [nodeLine('before', b), nodeLine('after', a)];
  for (const ev of a?.events.slice(-5) ?? []) evidence.push(`node event ${ev.timestamp}: ${ev.message}`);
  if (!b || !a)
    return judgement('failed', `the client node was not observed ${!b ? 'before' : 'after'} the reboot`, evidence);
  if (a.id !== b.id)
    return judgement('failed', `a different node came back: ${show(a.id)} instead of ${b.id}`, evidence);
  if (a.status !== 'ready') return judgement('failed', `node ${a.id} is ${show(a.status)}, not ready`, evidence);
  return judgement('passed', `node ${a.id} is ready again`, evidence);
}

function nodeLine(label: string, n: NodeSnap | undefined): string {
  return n
    ? `${label}: node ${n.id} (${n.name}) status=${n.status} updated=${new Date(n.statusUpdatedAt * 1000).toISOString()}`
    : `${label}: no node observed`;
}

// Each host's journals, addresses, iptables and CNI state, collected before the teardown, named by slot name; and
// each host's kernel and CNI plugin releases, recorded as facts once its agents are in place.
import { collectHostEvidence, readHostFacts } from '../cluster/evidence.js';
import type { Lab } from '../model/lab.js';
import { hostFactProperties } from '../parse/host-facts.js';
import type { RunContext } from '../run/context.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';

/** How long a machine may take to answer before its host evidence is given up (a client that never came back). */
const REACH_FOR_EVIDENCE_MS = 20_000;

/**
 * Register the collection of every machine's host evidence. A machine that does not answer SSH within
 * REACH_FOR_EVIDENCE_MS (a client that never came back) is skipped with the reason, so it does not use up the
 * evidence budget of the others.
 */
export function onHostEvidence(ctx: RunContext, lab: Lab): void {
  ctx.onEvidence('hosts: journals, addresses, iptables, CNI state', async (dd) => {
    for (const [slot, m] of Object.entries(lab.machines)) {
      const reach = await m.bootId({ deadline: deadlineIn(REACH_FOR_EVIDENCE_MS, dd) }).then(
        () => undefined,
        (err: Error) => err.message.split('\n')[0],
      );
      const files = reach
        ? { 'error.txt': `not collected: ${m.name} did not answer over SSH: ${reach}\n` }
        : await collectHostEvidence(m, { deadline: dd }).catch((err: Error) => ({ 'error.txt': err.message }));
      for (const [name, text] of Object.entries(files)) ctx.artifact(`${slot}-${name}`, text);
    }
  });
}

/** How long the kernel and plugin versions of every machine may take to read together. */
const HOST_FACTS_MS = 30_000;

/**
 * Record each machine's kernel (`<slot>.kernel`) and CNI plugin releases (`<slot>.cni.plugins`) as facts. Best
 * effort: a machine that does not answer gets `<slot>.facts` saying why, and the run goes on.
 */
export async function recordHostFacts(ctx: RunContext, lab: Lab, d: Deadline): Promise<void> {
  const dd = deadlineIn(HOST_FACTS_MS, d);
  await Promise.all(
    Object.entries(lab.machines).map(async ([slot, m]) => {
      try {
        for (const [k, v] of Object.entries(hostFactProperties(slot, await readHostFacts(m, { deadline: dd }))))
          ctx.fact(k, v);
      } catch (err) {
        ctx.fact(`${slot}.facts`, `not read: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    }),
  );
}

// Pure: the shipped job of a one-client scenario pinned to the client the scenario disrupts. On a lab of several
// clients the scheduler would place the job's one alloc on any of them, and the scenario judges only the one it hits:
// a constraint on the node's name (its hostname, the machine's slot name) puts the alloc where the fault lands.
import type { ApiJob } from '../nomad/api-types.js';

/** Nomad's attribute for the node's name, as a job constraint reads it. */
const NODE_NAME = '${node.unique.name}';

/** `job` with one more job-level constraint: its allocs only on the node named `nodeName`. */
export function pinToNode(job: ApiJob, nodeName: string): ApiJob {
  const own = (job['Constraints'] as unknown[] | null | undefined) ?? [];
  return { ...job, Constraints: [...own, { LTarget: NODE_NAME, RTarget: nodeName, Operand: '=' }] };
}

// Wait until one alloc (the full object) is in a state, by blocking queries as lib/nomad/wait.ts waits: the fake
// Nomad's timelines are followed with it.
import { BLOCKING_INTERVALS, blockingProbe, describeAllocStub, type WaitOpts } from '../../lib/nomad/wait.js';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';
import type { Nomad } from '../../lib/nomad/client.js';
import { waitFor, type Probe } from '../../lib/time/wait-for.js';

/** Wait until `predicate` holds for one alloc (full object); `terminal` may declare a hopeless state. */
export async function waitForAlloc(
  nomad: Nomad,
  allocId: string,
  predicate: (a: ApiAllocation) => boolean,
  {
    deadline,
    describe,
    onReason,
    maxBlockMs,
    terminal,
  }: WaitOpts & { describe: string; terminal?: (a: ApiAllocation) => boolean },
): Promise<ApiAllocation> {
  const judge = (a: ApiAllocation): Probe<ApiAllocation> =>
    predicate(a)
      ? { done: true, value: a }
      : { done: false, reason: describeAllocStub(a), terminal: terminal?.(a) ?? false };
  return waitFor(
    describe,
    blockingProbe((q) => nomad.allocation(allocId, q), judge, maxBlockMs),
    { deadline, onReason, intervals: BLOCKING_INTERVALS },
  );
}

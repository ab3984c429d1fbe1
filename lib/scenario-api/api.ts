// The scenario API: the one module a scenario file imports, as `nomad-reboot-harness/scenario` (docs/scenarios.md).
// What is exported here is kept stable; anything else under lib/ may change without notice.
import { fileURLToPath } from 'node:url';
import type { Lab } from '../model/lab.js';
import type { AllocSnap, HttpProbe, NodeSnap } from '../model/evidence.js';
import type { Deadline } from '../model/deadline.js';
import { probeAllocPorts, waitForReachable } from '../steps/alloc-probes.js';

// a scenario and its checks
export { defineScenario } from '../run/scenario.js';
export type { Scenario, ScenarioEnv } from '../run/scenario.js';
export { defineCheck, judgeAll } from '../checks/define.js';
export type { CheckDef, CheckInfo, Judgement, Explains } from '../model/check.js';
export type { CheckResult, CheckStatus } from '../model/check.js';
export type { AllocSnap, NodeSnap, HttpProbe, TaskEventRec } from '../model/evidence.js';

// steps, deadlines, waits, artifacts (ctx.step, ctx.artifact, ctx.fact, ctx.mark, ctx.cleanup)
export type { RunContext } from '../run/context.js';
export type { Deadline } from '../time/deadlines.js';
export { deadlineIn, remaining, sleep } from '../time/deadlines.js';
export { waitFor, type Probe } from '../time/wait-for.js';
export { HarnessError, TimeoutError } from '../errors.js';
export type { ConfigProblem } from '../errors.js';
export type { HarnessConfig } from '../config/schema.js';

// the lab: machines reached over SSH, reboots, commands quoted once
export type { Lab, Machine, ExecResult, RebootKind, RebootRecord } from '../model/lab.js';
// a lab's machines by role, in index order ("client" in a pair, "client-1", "client-2" otherwise)
export { firstOf, machinesOf, namedMachinesOf } from '../model/lab.js';
export { quote, sh } from '../shell/quote.js';
export { readBootInfo, httpProbe, readAgentLog } from '../lab/observe.js';

// the Nomad API client and its waits (blocking queries)
export type { Nomad } from '../nomad/client.js';
export type { ApiAllocation, ApiNode, ApiJob } from '../nomad/api-types.js';
export { waitForLeader, waitForNodeReady, waitForAllocRunning } from '../nomad/wait.js';
export { toAllocSnap, toNodeSnap } from '../nomad/parse.js';
export { waitForBridgeClient } from '../steps/client-ready.js';
export { readJobAllocs } from '../steps/reboot-steps.js';

/** Probe every mapped port of one alloc once: its bridge address from the client, its host port from the server. */
export function probeAlloc(lab: Lab, alloc: AllocSnap, node: NodeSnap, d: Deadline): Promise<HttpProbe[]> {
  return probeAllocPorts(lab, alloc, [node], undefined, d);
}

/** Poll until every probe of the alloc answers (a server takes a moment to bind after its task starts). */
export function waitForHttp(lab: Lab, alloc: AllocSnap, node: NodeSnap, d: Deadline): Promise<HttpProbe[]> {
  return waitForReachable({ lab, allocs: [alloc], nodes: [node], kinds: undefined }, d);
}

/** Jobs shipped with the harness (absolute paths), for scenarios that reuse them. */
export const JOBS = {
  bridgeExecHttp: fileURLToPath(new URL('../../jobs/bridge-exec-http.nomad.hcl', import.meta.url)),
} as const;

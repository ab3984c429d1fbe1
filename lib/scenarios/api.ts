// The scenario API: the one module a scenario file imports, as `nomad-reboot-harness/scenario` (docs/scenarios.md).
// What is exported here is kept stable; anything else under lib/ may change without notice.
import { fileURLToPath } from 'node:url';

// a scenario and its checks
export { defineScenario } from '../run/scenario.js';
export type { Scenario, ScenarioEnv, CheckInfo } from '../run/scenario.js';
export { defineCheck, judgeAll } from './checks.js';
export type { CheckDef, Judgement } from './checks.js';
export type { CheckResult, CheckStatus, AllocSnap, NodeSnap, HttpProbe, TaskEventRec } from '../checks/types.js';

// steps, deadlines, waits, artifacts (ctx.step, ctx.artifact, ctx.fact, ctx.mark, ctx.cleanup)
export type { RunContext } from '../run/context.js';
export type { Deadline } from '../run/deadline.js';
export { deadlineIn, remaining, sleep } from '../run/deadline.js';
export { waitFor, type Probe } from '../run/wait.js';
export { HarnessError, TimeoutError } from '../errors.js';
export type { ConfigProblem } from '../errors.js';
export type { HarnessConfig } from '../config/schema.js';

// the lab: machines reached over SSH, reboots, commands quoted once
export type { Lab, Machine, ExecResult, RebootKind, RebootRecord } from '../lab/types.js';
export { quote, sh } from '../ssh/quote.js';
export { readBootInfo, httpProbe, readAgentLog } from '../lab/observe.js';

// the Nomad API client and its waits (blocking queries)
export type { Nomad } from '../nomad/client.js';
export type { ApiAllocation, ApiNode, ApiJob } from '../nomad/api-types.js';
export { waitForLeader, waitForNodeReady, waitForAllocRunning } from '../nomad/wait.js';
export { toAllocSnap, toNodeSnap } from '../nomad/parse.js';
export { waitForBridgeClient } from '../scenario/client-ready.js';
export { readJobAllocs, probeAlloc, waitForHttp } from '../scenario/reboot-steps.js';

/** Jobs shipped with the harness (absolute paths), for scenarios that reuse them. */
export const JOBS = {
  bridgeExecHttp: fileURLToPath(new URL('../../jobs/bridge-exec-http.nomad.hcl', import.meta.url)),
} as const;

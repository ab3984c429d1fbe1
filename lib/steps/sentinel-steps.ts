// The reads behind the always-on sentinel checks, the same in every Nomad scenario: every machine's Nomad journal over
// each boot the run covers (the boot a reboot ended included) and its systemd unit, what each fault was seen to
// cause, and, in cluster runs, each server's own state until the servers agree or the bound runs out. The checks
// (no-agent-crash, agent-log-invariants, fault-exercised, servers-agree) judge what is recorded here.
import type { HarnessConfig } from '../config/schema.js';
import { durationSeconds } from '../config/durations.js';
import type { Lab, RebootRecord } from '../model/lab.js';
import type {
  AgentBootJournal,
  AgentJournalRead,
  FaultEffectSeen,
  SentinelEvidence,
  ServerRead,
  ServersRead,
} from '../model/sentinels.js';
import type { Nomad } from '../nomad/client.js';
import { readServerState } from '../nomad/server-state.js';
import { AGENT_UNIT_COMMAND, agentJournalCommand } from '../lab/observe.js';
import { linesSince } from '../checks/agent-journal.js';
import { compareServers, SERVERS_AGREE } from '../checks/servers-agree.js';
import { NO_AGENT_CRASH } from '../checks/no-agent-crash.js';
import { AGENT_LOG_INVARIANTS } from '../checks/agent-log-invariants.js';
import { FAULT_EXERCISED } from '../checks/fault-exercised.js';
import type { RunContext } from '../run/context.js';
import type { ScenarioEnv } from '../run/scenario.js';
import { deadlineIn, sleep, type Deadline } from '../time/deadlines.js';

/** The checks every Nomad scenario lists last, in report order (each judges `sentinels` of the scenario's evidence). */
export const SENTINEL_CHECKS = [NO_AGENT_CRASH, AGENT_LOG_INVARIANTS, FAULT_EXERCISED, SERVERS_AGREE] as const;

/** How long one machine's journals may take to read (a machine that never came back must not hold the run). */
const JOURNAL_READ_MS = 30_000;
/** How long the servers are read again until they agree, and how often. */
const SERVERS_AGREE_BOUND_MS = 60_000;
const SERVERS_AGREE_EVERY_MS = 2000;

/** A fault as the scenario ran it: the machine's slot name and role, and what it saw of the node meanwhile. */
export interface FaultRun {
  machine: string;
  role: string;
  record: RebootRecord;
  /** the node's statuses after the fault was requested, in order (clients) */
  nodeStatuses?: string[];
  /** the machine ran allocs of the job when the fault hit (a client not drained) */
  hadAllocs?: boolean;
}

/** Every machine's Nomad journals (boots -k..0, k = the reboots it had in the run) and its unit, side by side. */
async function readAgentJournals(
  lab: Lab,
  rebootsOf: Readonly<Record<string, number>>,
  d: Deadline,
): Promise<AgentJournalRead[]> {
  return Promise.all(
    Object.entries(lab.machines).map(async ([slot, m]): Promise<AgentJournalRead> => {
      const dd = deadlineIn(JOURNAL_READ_MS, d);
      const k = rebootsOf[slot] ?? 0;
      const offsets = Array.from({ length: k + 1 }, (_, i) => (i === k ? '0' : `-${k - i}`));
      try {
        const boots: AgentBootJournal[] = [];
        for (const boot of offsets) {
          const r = await m.exec(agentJournalCommand(boot), { deadline: dd, sudo: true });
          const lines = r.stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('-- '));
          boots.push(
            r.code === 0
              ? { boot, lines }
              : { boot, lines, error: `exit ${r.code}: ${r.stderr.trim().split('\n')[0] ?? ''}` },
          );
        }
        const unit = await m.exec(AGENT_UNIT_COMMAND, { deadline: dd });
        return { machine: slot, role: m.role, boots, ...(unit.code === 0 ? { unitShow: unit.stdout } : {}) };
      } catch (err) {
        const error = err instanceof Error ? err.message.split('\n')[0]! : String(err);
        return { machine: slot, role: m.role, boots: [], error };
      }
    }),
  );
}

/**
 * Each server's own state, read again until the servers agree, two rounds alike show a settled state, or `boundMs`
 * runs out; the last round is kept.
 */
async function readServersUntilAgreed(
  apis: Readonly<Record<string, Nomad>>,
  when: string,
  d: Deadline,
  boundMs = SERVERS_AGREE_BOUND_MS,
): Promise<ServersRead> {
  const until = deadlineIn(boundMs, d);
  let rounds = 0;
  let reads: ServerRead[] = [];
  let last = '';
  for (;;) {
    rounds++;
    reads = await Promise.all(
      Object.entries(apis).map(([server, nomad]) => readServerState(nomad, server, deadlineIn(10_000, d).signal)),
    );
    // Note: two rounds alike, no index moved, are a settled state: reading it again cannot change the comparison
    const now = JSON.stringify(reads.map(({ atMs: _, ...r }) => r));
    if (compareServers(reads).verdict === 'equal' || now === last || until.signal.aborted) break;
    last = now;
    const stop = await sleep(SERVERS_AGREE_EVERY_MS, until).then(
      () => false,
      () => true,
    );
    if (stop) break;
  }
  return { reads, rounds, boundMs, when };
}

/** What the sentinel checks judge, from the reads and the faults as run. Pure. */
export function sentinelEvidence(o: {
  watchFromMs: number;
  faults: readonly FaultRun[];
  agents: AgentJournalRead[];
  config: Pick<HarnessConfig, 'agentLog' | 'nomad'>;
  servers?: ServersRead;
  serversAfterFaults?: ServersRead[];
}): SentinelEvidence {
  const graceMs = durationSeconds(o.config.nomad.heartbeatGrace) * 1000;
  const faults = o.faults.map((f): FaultEffectSeen => {
    const agent = o.agents.find((a) => a.machine === f.machine);
    const r = f.record;
    return {
      machine: f.machine,
      role: f.role,
      kind: r.kind,
      requestedAt: r.requestedAt,
      backAt: r.backAt,
      bootIdBefore: r.bootIdBefore,
      bootIdAfter: r.bootIdAfter,
      heartbeatGraceMs: graceMs,
      ...(r.facts ? { facts: r.facts } : {}),
      ...(r.marks ? { marks: r.marks.map((m) => m.label) } : {}),
      ...(f.nodeStatuses ? { nodeStatuses: f.nodeStatuses } : {}),
      ...(f.hadAllocs !== undefined ? { hadAllocs: f.hadAllocs } : {}),
      ...(agent && !agent.error ? { agentLogAfter: linesSince(agent, r.requestedAt).map((l) => l.text) } : {}),
    };
  });
  const first = Math.min(...o.faults.map((f) => f.record.requestedAt));
  return {
    watchFromMs: o.watchFromMs,
    ...(Number.isFinite(first) ? { faultAtMs: first } : {}),
    agents: o.agents,
    faults,
    logRules: { never: [...o.config.agentLog.never], allowed: [...o.config.agentLog.allowed] },
    ...(o.servers ? { servers: o.servers } : {}),
    ...(o.serversAfterFaults?.length ? { serversAfterFaults: o.serversAfterFaults } : {}),
  };
}

/**
 * Each server's own state right after a fault hit a server (`when` says which), until the servers agree or the bound
 * runs out: a server that came back from a fault with a wiped or stale state store shows here, before later faults or
 * the end of the run can hide it. Undefined when the scenario cannot reach each server.
 */
export async function readServersAfterFault(
  ctx: RunContext,
  env: Pick<ScenarioEnv, 'connectServers'>,
  lab: Lab,
  when: string,
): Promise<ServersRead | undefined> {
  if (!env.connectServers) return undefined;
  const read = await ctx.step(
    `read each server's own state ${when}`,
    async (d) => readServersUntilAgreed(await env.connectServers!(ctx, lab, d), when, d),
    { timeoutMs: SERVERS_AGREE_BOUND_MS + 60_000 },
  );
  return read;
}

/**
 * The steps every Nomad scenario ends with before it judges: read every agent's journal and unit, and (`servers`)
 * each server's own state through env.connectServers. Best effort: what cannot be read is recorded as such and the
 * checks say so; the run goes on.
 */
export async function readSentinels(
  ctx: RunContext,
  env: Pick<ScenarioEnv, 'config' | 'connectServers'>,
  lab: Lab,
  o: { watchFromMs: number; faults: readonly FaultRun[]; servers?: string; serversAfterFaults?: ServersRead[] },
): Promise<SentinelEvidence> {
  const rebootsOf: Record<string, number> = {};
  for (const f of o.faults)
    if (f.record.bootIdBefore !== f.record.bootIdAfter) rebootsOf[f.machine] = (rebootsOf[f.machine] ?? 0) + 1;
  const agents = await ctx.step("read every agent's journal (each boot of the run) and its systemd unit", (d) =>
    readAgentJournals(lab, rebootsOf, d),
  );
  const when = o.servers;
  const servers =
    when && env.connectServers
      ? await ctx.step(
          "read each server's own state until the servers agree",
          async (d) => readServersUntilAgreed(await env.connectServers!(ctx, lab, d), when, d),
          { timeoutMs: SERVERS_AGREE_BOUND_MS + 60_000 },
        )
      : undefined;
  if (servers) ctx.artifact('servers-read.json', JSON.stringify(servers, null, 2));
  if (o.serversAfterFaults?.length)
    ctx.artifact('servers-read-after-faults.json', JSON.stringify(o.serversAfterFaults, null, 2));
  return sentinelEvidence({
    watchFromMs: o.watchFromMs,
    faults: o.faults,
    agents,
    config: env.config,
    ...(servers ? { servers } : {}),
    ...(o.serversAfterFaults?.length ? { serversAfterFaults: o.serversAfterFaults } : {}),
  });
}

/** The sentinel evidence with each journal's and each fault's lines replaced by their count (for artifacts). Pure. */
export function withoutJournalLines(s: SentinelEvidence): SentinelEvidence {
  const counted = (lines: readonly string[]) => [`(${lines.length} lines)`];
  return {
    ...s,
    agents: s.agents.map((a) => ({ ...a, boots: a.boots.map((b) => ({ ...b, lines: counted(b.lines) })) })),
    faults: s.faults.map((f) => (f.agentLogAfter ? { ...f, agentLogAfter: counted(f.agentLogAfter) } : f)),
  };
}

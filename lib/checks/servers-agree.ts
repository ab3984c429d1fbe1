// Check: every server of the cluster holds the same state after the faults. Read from each server's own state (stale
// reads, lib/nomad/server-state.ts) and compared side by side: the same Raft voters, the same term, the same applied
// index within the read's bound, the same jobs, allocs, nodes, deployments and variables at that index, and a ready
// keyring on each. A server restored from a bad snapshot, or left behind by a state-store mutation, shows here.
import { defineCheck, needing } from './define.js';
import type { Judgement } from '../model/check.js';
import {
  SERVER_STATE_KINDS,
  type ServerRead,
  type ServersRead,
  type ServerStateKind,
  type WithSentinels,
} from '../model/sentinels.js';
import { judgement } from './result.js';

export const SERVERS_AGREE = defineCheck<WithSentinels>({
  id: 'servers-agree',
  title: 'Servers agree',
  passesWhen:
    "every server, read right after each fault on a server and at the end, has the same Raft voters and term, applied index (within the read's bound) and state, and a ready keyring",
  details: `read from each server (stale) right after every fault on a server and at the end: the same Raft voters and term, the same applied index within the read's bound, the same ${SERVER_STATE_KINDS.join(', ')} at that index, and a ready keyring on every server`,
  judge: needing(
    (e: WithSentinels) =>
      e.sentinels?.servers ? [...(e.sentinels.serversAfterFaults ?? []), e.sentinels.servers] : undefined,
    "the servers' own state was not read (only cluster runs read it)",
  )(judgeEveryRead),
});

/** Every read of the run (after each fault on a server, then at the end): the first that did not agree fails it. */
function judgeEveryRead(all: readonly ServersRead[]): Judgement {
  if (all.length === 1) return judgeServersAgree(all[0]!);
  const judged = all.map((s) => {
    const j = judgeServersAgree(s);
    return { s, j, line: j.message.startsWith(s.when) ? j.message : `${s.when}: ${j.message}` };
  });
  const bad = judged.filter((x) => x.j.status !== 'passed');
  const evidence = judged.flatMap((x) => [x.line, ...(x.j.evidence ?? []).map((l) => `  ${l}`)]);
  if (!bad.length) {
    const last = judged[judged.length - 1]!.j;
    const before = judged.length - 1;
    const more = `; so they did right after ${before === 1 ? 'the fault' : `each of the ${before} faults`} on a server`;
    return judgement('passed', `${last.message}${more}`, evidence);
  }
  return judgement('failed', bad.map((x) => x.line).join('; '), evidence);
}

/** How the servers compare: the same state, one behind (not converged in the bound), or different at one index. */
type ServersVerdict = 'equal' | 'lagging' | 'diverged' | 'unreadable';

interface ServersComparison {
  verdict: ServersVerdict;
  /** why, one short line each (empty when equal) */
  reasons: string[];
  /** the reads side by side, one line per server and per difference */
  lines: string[];
}

function judgeServersAgree(s: ServersRead): Judgement {
  const c = compareServers(s.reads);
  const head = `${s.when}: ${s.reads.length} server${s.reads.length === 1 ? '' : 's'} read, ${s.rounds} round${s.rounds === 1 ? '' : 's'} within ${(s.boundMs / 1000).toFixed(0)}s`;
  if (c.verdict === 'equal') return judgement('passed', `${head}; the servers agree`, c.lines);
  return judgement('failed', `${c.verdict}: ${c.reasons.join('; ')}`, [head, ...c.lines]);
}

/** Compare the servers' reads (pure). Diverged outranks lagging, which outranks unreadable parts of a read. */
export function compareServers(reads: readonly ServerRead[]): ServersComparison {
  const lines = reads.map(serverLine);
  const reasons = { diverged: [] as string[], lagging: [] as string[], unreadable: [] as string[] };
  for (const r of reads) for (const e of r.errors) reasons.unreadable.push(`${r.server}: ${e}`);
  for (const r of reads)
    if (r.keyring && !r.keyring.ready) reasons.diverged.push(`${r.server}: keyring not ready (${r.keyring.detail})`);

  const voters = distinct(reads, (r) => r.voters?.join(','));
  if (voters.size > 1) reasons.diverged.push(`Raft voters differ: ${describe(voters)}`);
  const terms = distinct(reads, (r) => r.lastTerm?.toString());
  if (terms.size > 1) reasons.lagging.push(`Raft terms differ: ${describe(terms)}`);
  const applied = distinct(reads, (r) => r.appliedIndex?.toString());
  const unstable = reads.filter((r) => r.appliedIndexAfter !== undefined && r.appliedIndexAfter !== r.appliedIndex);
  if (applied.size > 1) reasons.lagging.push(`applied indexes differ: ${describe(applied)}`);
  if (unstable.length)
    reasons.lagging.push(
      `still applying during the read: ${unstable.map((r) => `${r.server} ${r.appliedIndex}->${r.appliedIndexAfter}`).join(', ')}`,
    );

  // the state is compared among the servers that read it at one applied index that held through the read
  for (const group of atEqualIndex(reads)) {
    for (const kind of SERVER_STATE_KINDS) {
      const diff = stateDiff(group, kind);
      if (!diff) continue;
      reasons.diverged.push(`${kind} differ at applied index ${group[0]!.appliedIndex}`);
      lines.push(...diff);
    }
  }
  const verdict: ServersVerdict = reasons.diverged.length
    ? 'diverged'
    : reasons.lagging.length
      ? 'lagging'
      : reasons.unreadable.length
        ? 'unreadable'
        : 'equal';
  return { verdict, reasons: verdict === 'equal' ? [] : reasons[verdict], lines };
}

/** One server's read on one line. */
function serverLine(r: ServerRead): string {
  const counts = SERVER_STATE_KINDS.map((k) => `${k} ${r.state?.[k]?.length ?? '?'}`).join(', ');
  const keyring = r.keyring ? (r.keyring.ready ? 'ready' : `NOT ready (${r.keyring.detail})`) : '?';
  return `${r.server}: voters [${r.voters?.join(', ') ?? '?'}] term ${r.lastTerm ?? '?'} last index ${r.lastIndex ?? '?'} applied ${r.appliedIndex ?? '?'}; keyring ${keyring}; ${counts}${r.errors.length ? `; unread: ${r.errors.length}` : ''}`;
}

/** Groups of at least two servers whose applied index was the same before and after their state reads. */
function atEqualIndex(reads: readonly ServerRead[]): ServerRead[][] {
  const by = new Map<number, ServerRead[]>();
  for (const r of reads) {
    if (r.appliedIndex === undefined || (r.appliedIndexAfter ?? r.appliedIndex) !== r.appliedIndex) continue;
    by.set(r.appliedIndex, [...(by.get(r.appliedIndex) ?? []), r]);
  }
  return [...by.values()].filter((g) => g.length > 1);
}

/** The lines of `kind` that not every server of the group holds, side by side; undefined when they agree. */
function stateDiff(group: readonly ServerRead[], kind: ServerStateKind): string[] | undefined {
  const sets = group.filter((r) => r.state?.[kind]).map((r) => ({ server: r.server, lines: new Set(r.state![kind]) }));
  if (sets.length < 2) return undefined;
  const all = new Set(sets.flatMap((s) => [...s.lines]));
  const odd = [...all].filter((l) => !sets.every((s) => s.lines.has(l))).sort();
  if (!odd.length) return undefined;
  return [
    `  ${kind}: ${odd.length} object${odd.length === 1 ? '' : 's'} not held alike`,
    ...odd
      .slice(0, 8)
      .map((l) => `    ${l}: ${sets.map((s) => `${s.server} ${s.lines.has(l) ? 'has' : 'lacks'}`).join(', ')}`),
  ];
}

/** The distinct values (undefined left out) and the servers holding each. */
function distinct(reads: readonly ServerRead[], f: (r: ServerRead) => string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of reads) {
    const v = f(r);
    if (v !== undefined) out.set(v, [...(out.get(v) ?? []), r.server]);
  }
  return out;
}

function describe(m: Map<string, string[]>): string {
  return [...m].map(([v, servers]) => `${servers.join(', ')}: ${v || '(none)'}`).join(' vs ');
}

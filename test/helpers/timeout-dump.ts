// When tap times a test out (it sends the test process SIGALRM and lists the open handles), the handles say that a
// request was open but not what the run was doing. Every stand-in run's captured console is registered here, and on
// SIGALRM the tail of the latest ones goes to stderr, which tap shows beside its timeout, with what the run's Nomad
// stand-ins hold (a wait that never ends is waiting for a state the stand-in never reaches).
import type { Cluster } from './fake-nomad/cluster.js';
import type { FakeNomad } from './fake-nomad/index.js';

const consoles: { label: string; lines: string[]; standIns: () => readonly FakeNomad[] }[] = [];
const KEEP = 4;
const TAIL = 30;
let installed = false;

function dump(): void {
  // tap may signal more than once before it kills the process: one copy is enough
  process.off('SIGALRM', dump);
  for (const c of consoles) {
    const text = c.lines.join('').split('\n').slice(-TAIL).join('\n');
    process.stderr.write(`\n--- console of ${c.label} at the timeout (last ${TAIL} lines) ---\n${text}\n`);
    for (const [i, n] of c.standIns().entries())
      process.stderr.write(
        `--- Nomad stand-in ${i + 1} of ${c.label} ---\n${clusterState(n.cluster)}\n${openRequests(n)}\n`,
      );
  }
}

/** The requests the stand-in holds unanswered: what the run is waiting on. */
function openRequests(n: FakeNomad): string {
  const now = Date.now();
  const open = n.requests.filter((r) => r.open);
  if (!open.length) return 'no request open';
  return open
    .map((r) => `open for ${now - r.atMs} ms: ${r.method} ${r.path} ${new URLSearchParams(r.query).toString()}`)
    .join('\n');
}

/** One line per node, job deployment, alloc (with its tasks) and eval: what a settle or deployment wait reads. */
function clusterState(c: Cluster): string {
  const out = [`index ${c.index}; client agent ${c.agentUp ? 'up' : 'down'}`];
  for (const n of c.allNodes()) out.push(`node ${n.Name}: ${n.Status} (modify ${n.ModifyIndex})`);
  for (const d of c.deployments.values()) out.push(`deployment of ${d.JobID}: ${d.Status} (modify ${d.ModifyIndex})`);
  for (const a of c.allocs.values()) {
    const tasks = Object.entries(a.TaskStates ?? {})
      .map(
        ([t, st]) =>
          `${t} ${st.State} started ${st.StartedAt ?? '-'} [${(st.Events ?? []).map((e) => e.Type).join(', ')}]`,
      )
      .join('; ');
    out.push(
      `alloc ${a.Name} ${a.ID.slice(0, 8)}: client ${a.ClientStatus} desired ${a.DesiredStatus} modify ${a.ModifyIndex}` +
        ` followup ${a.FollowupEvalID || '-'} next ${a.NextAllocation || '-'}; ${tasks}`,
    );
  }
  for (const e of c.evals.values())
    out.push(`eval ${e.ID.slice(0, 8)} ${e.TriggeredBy}: ${e.Status}${e.WaitUntil ? ` until ${e.WaitUntil}` : ''}`);
  return out.join('\n');
}

/**
 * Show `lines` (a run's captured stderr, appended to as the run goes) and the state of `standIns` (the run's Nomad
 * stand-ins, as they are then) if the test process gets SIGALRM.
 */
export function showOnTimeout(label: string, lines: string[], standIns: () => readonly FakeNomad[] = () => []): void {
  consoles.push({ label, lines, standIns });
  if (consoles.length > KEEP) consoles.shift();
  if (installed) return;
  installed = true;
  // Note: tap's own SIGALRM listener still runs; this one only adds the runs' consoles to its report
  process.on('SIGALRM', dump);
}

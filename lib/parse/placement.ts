// Pure: an evaluation's FailedTGAllocs as Nomad's CLI prints them ("Placement Failure"), and the harness flag that fixes
// each kind of failure. Format from nomad@v1.9.3:command/monitor.go formatAllocMetrics and eval_status.go.

/** The AllocationMetric fields the text is made of (api/allocations.go). */
export interface ApiAllocMetric {
  NodesEvaluated?: number;
  NodesAvailable?: Record<string, number> | null;
  ClassFiltered?: Record<string, number> | null;
  ConstraintFiltered?: Record<string, number> | null;
  NodesExhausted?: number;
  ClassExhausted?: Record<string, number> | null;
  DimensionExhausted?: Record<string, number> | null;
  QuotaExhausted?: string[] | null;
  CoalescedFailures?: number;
}

/** The lab's sizes, to say what to raise. */
export interface LabSize {
  memoryMb: number;
  cpus: number;
}

/** Nomad's own lines for one task group's placement failure, e.g. `Task Group "web" (failed to place 1 allocation):`. */
export function placementLines(group: string, m: ApiAllocMetric): string[] {
  const n = (m.CoalescedFailures ?? 0) + 1;
  const out = [`Task Group "${group}" (failed to place ${n} allocation${n === 1 ? '' : 's'}):`];
  if ((m.NodesEvaluated ?? 0) === 0) out.push('* No nodes were eligible for evaluation');
  for (const [dc, avail] of Object.entries(m.NodesAvailable ?? {}))
    if (avail === 0) out.push(`* No nodes are available in datacenter "${dc}"`);
  for (const [c, k] of Object.entries(m.ClassFiltered ?? {})) out.push(`* Class "${c}": ${k} nodes excluded by filter`);
  for (const [c, k] of Object.entries(m.ConstraintFiltered ?? {}))
    out.push(`* Constraint "${c}": ${k} nodes excluded by filter`);
  if ((m.NodesExhausted ?? 0) > 0) out.push(`* Resources exhausted on ${m.NodesExhausted} nodes`);
  for (const [c, k] of Object.entries(m.ClassExhausted ?? {})) out.push(`* Class "${c}" exhausted on ${k} nodes`);
  for (const [d, k] of Object.entries(m.DimensionExhausted ?? {}))
    out.push(`* Dimension "${d}" exhausted on ${k} nodes`);
  for (const q of m.QuotaExhausted ?? []) out.push(`* Quota limit hit "${q}"`);
  return out;
}

/** What to change so the job fits, from the exhausted dimensions and filters. */
function placementFix(failed: Record<string, ApiAllocMetric>, lab: LabSize): string {
  const metrics = Object.values(failed);
  const dims = [...new Set(metrics.flatMap((m) => Object.keys(m.DimensionExhausted ?? {})))];
  const ports = dims.filter((d) => /port/i.test(d));
  const others = dims.filter((d) => !/^(memory|cpu)$/.test(d) && !ports.includes(d));
  const constraints = metrics.flatMap((m) => [
    ...Object.keys(m.ConstraintFiltered ?? {}),
    ...Object.keys(m.ClassFiltered ?? {}),
  ]);
  // Note: "missing drivers" is how Nomad names a node without a healthy driver for a task (real v1.9.3 capture).
  const noDriver = constraints.includes('missing drivers');
  const filtered = constraints.some((c) => c !== 'missing drivers');
  const fixes: string[] = [];
  if (dims.includes('memory')) {
    const more = Math.max(1024, lab.memoryMb * 2);
    fixes.push(
      `give the client VM more memory: --memory ${more} (now ${lab.memoryMb} MiB), or lower the tasks' resources { memory }`,
    );
  }
  if (dims.includes('cpu'))
    fixes.push(
      `give the client VM more vCPUs: --cpus ${lab.cpus + 1} (now ${lab.cpus}), or lower the tasks' resources { cpu }`,
    );
  if (ports.length)
    fixes.push(
      'the job asks for a host port the client cannot give (a static port used twice or taken): change its static ports',
    );
  if (others.length) fixes.push(`lower the job's resources (${others.join(', ')})`);
  if (noDriver)
    fixes.push(
      "the client has no healthy driver for one of the job's tasks: use a driver the box has (exec, raw_exec; docker on the Docker box)",
    );
  if (filtered) fixes.push("the job's constraints exclude the lab's client node: remove or adapt them");
  if (metrics.some((m) => (m.NodesEvaluated ?? 0) === 0) && !fixes.length) {
    fixes.push(
      'no client node was eligible: check the job\'s datacenters (the lab\'s client is in "dc1") and node_pool',
    );
  }
  return fixes.length ? fixes.join('; ') : 'see the placement failure above';
}

/** One message for a job that cannot be placed: Nomad's placement failure text per group and the fix. */
export function placementFailureMessage(jobId: string, failed: Record<string, ApiAllocMetric>, lab: LabSize): string {
  const text = Object.entries(failed)
    .flatMap(([g, m]) => placementLines(g, m))
    .join(' ');
  return `job "${jobId}" does not fit the client (Nomad's placement failure: ${text}); fix: ${placementFix(failed, lab)}`;
}

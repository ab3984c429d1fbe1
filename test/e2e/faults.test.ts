// e2e tier (issue 15): the fault kinds that keep the host up, against REAL Nomad builds on real VMs, as a matrix per
// build: agent-kill (the control case: the agent restarts, tasks keep running, nothing replaced) and a partition longer
// than heartbeat_grace (the node is marked down and the alloc replaced, which the verdict must call expected).
// The event stream of each run is recorded and checked for the transitions real Nomad sends.
// Builds come from NOMAD_BINARIES / NOMAD_BINARY; without them every test skips visibly.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { buildsFromEnv, runCli, verdictsOf, NETNS } from '../helpers/real-nomad.js';

t.setTimeout(120 * 60_000);
const builds = buildsFromEnv();
const skip = builds.length === 0 ? 'no Nomad build given: set NOMAD_BINARIES=/path/a,/path/b (or NOMAD_BINARY)' : vmSkipReason();
/** heartbeat_grace for the matrix and a partition well past it (Nomad's TTL is 10-20 s on top of the grace). */
const GRACE = '20s';
const PARTITION = '75s';

for (const build of builds.length ? builds : [undefined]) {
  t.test(`agent-kill and a ${PARTITION} partition (heartbeat_grace ${GRACE}) on Nomad ${build?.version ?? '(none)'}`, { skip: skip ?? false, timeout: 60 * 60_000 }, async (t) => {
    const b = build!;
    const dir = t.testdir({
      'faults.yaml': ['scenario: bridge-exec-reboot', 'axes:', `  nomad: [{ name: "${b.version.replace(/^v/, '')}", binary: ${JSON.stringify(b.path)} }]`,
        '  reboot: [agent-kill, partition]', 'parallel: 2', 'memory_budget_mb: 8192',
        'defaults:', `  nomad: { heartbeat_grace: ${GRACE} }`, `  reboot: { partition_for: ${PARTITION} }`, '  reports: { artifacts: always }', ''].join('\n'),
    });
    const junit = join(dir, 'junit.xml');
    const summary = join(dir, 'summary.json');
    const r = await runCli(t, ['matrix', join(dir, 'faults.yaml'), '--netns', NETNS, '--junit', junit, '--report-json', summary, '--reports-dir', join(dir, 'reports')]);
    t.equal(r.code, 0, 'exit 0: both cells met what their kind expects');
    validateJUnit(t, junit);
    type Run = { properties: Record<string, string>; verdicts: never[]; artifacts: { name: string; path: string }[] };
    const runs = JSON.parse(readFileSync(summary, 'utf8')).runs as Run[];
    const byKind = Object.fromEntries(runs.map((x) => [x.properties['reboot.kind'], x]));
    const kill = byKind['agent-kill']!;
    const vk = verdictsOf(kill);
    t.match(vk.get('client-rebooted')?.message, /boot_id unchanged .* the agent was restarted by systemd \(pid \d+ -> \d+\)/, 'agent-kill: no reboot, a new agent');
    t.match(vk.get('task-restarted')?.message, /kept running through agent-kill/, 'agent-kill: the task was not restarted');
    t.equal(vk.get('alloc-restored')?.label, 'passed');
    const part = byKind['partition']!;
    const vp = verdictsOf(part);
    t.match(vp.get('alloc-restored')?.message, /^replaced, as expected \(partition of 7\d(\.\d)?s > heartbeat_grace 20s\)/, 'partition: replaced, and the verdict says it was expected');
    t.equal(vp.get('client-rebooted')?.label, 'passed');
    for (const run of [kill, part]) {
      const events = readFileSync(run.artifacts.find((a: { name: string; path: string }) => a.name === 'events.ndjson')!.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { Events: { Topic: string; Type: string; Payload: Record<string, { Status?: string; ClientStatus?: string }> }[] });
      const all = events.flatMap((f) => f.Events);
      t.ok(all.some((e) => e.Topic === 'Allocation' && e.Type === 'PlanResult'), `${run.properties['reboot.kind']}: the placement arrived as a PlanResult`);
      t.ok(all.some((e) => e.Topic === 'Allocation' && e.Type === 'AllocationUpdated' && e.Payload['Allocation']?.ClientStatus === 'running'), 'the client reported it running');
      if (run === part) {
        t.ok(all.some((e) => e.Topic === 'Node' && e.Type === 'NodeStreamEvent' && e.Payload['Node']?.Status === 'down'), 'partition: the node went down (NodeStreamEvent)');
        t.ok(all.some((e) => e.Topic === 'Allocation' && e.Payload['Allocation']?.ClientStatus === 'lost'), 'partition: the alloc was marked lost');
      }
    }
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  });
}

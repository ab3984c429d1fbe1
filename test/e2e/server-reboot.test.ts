// e2e tier: the shipped `server-reboot` on a cluster of three servers (and two clients) on real VMs with a real Nomad
// build: the leader's host reboots for real; another server must lead within reboot.leader_within, no alloc may be
// disturbed (none moved or restarted), the service keeps answering, and the old leader rejoins as a Serf member and
// Raft voter. Takes the first build of NOMAD_BINARIES / NOMAD_BINARY; skips visibly without it or the lab. Five VMs
// under emulation (a warm lab of the same topology and build, kept by rolling-reboot.test.ts, is reverted to in
// seconds); run under `flock /work/vm.lock`. The topology's warm lab is destroyed at the end.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { buildsFromEnv, e2eRunFlags, runCli, verdictsOf, NETNS, NO_SUCH_JOB_CHECKS } from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';
import { serviceContinuity, seconds } from '../../lib/checks/continuity.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';

t.setTimeout(90 * 60_000);
const build = buildsFromEnv()[0];
const skip = build ? vmSkipReason() : 'no Nomad build given: set NOMAD_BINARY=/path/to/nomad (or NOMAD_BINARIES)';
const CHECKS = checkIds('server-reboot');
const SERVERS = ['server-1', 'server-2', 'server-3'];

t.test(
  `run server-reboot --servers 3 --clients 2 on Nomad ${build?.version ?? '(none)'}: the leader reboots, another leads in time, nothing disturbed, it rejoins`,
  { skip: skip ?? false, timeout: 80 * 60_000 },
  async (t) => {
    const dir = t.testdir({});
    const { flags, junit, summary } = e2eRunFlags(build!, dir);
    const started = Date.now();
    const r = await runCli(t, ['run', 'server-reboot', '--servers', '3', '--clients', '2', ...flags]);
    const run = JSON.parse(readFileSync(summary, 'utf8')).runs?.[0];
    const v = verdictsOf(run);
    t.comment(`run ${r.runIds.join(', ')}: exit ${r.code} after ${seconds(Date.now() - started)}`);
    t.comment([...v.values()].map((x) => `${x.id}=${x.label}: ${x.message}`).join('\n'));
    t.equal(r.code, 0, 'exit 0: every check met its expectation');
    validateJUnit(t, junit);
    t.same([...v.keys()], CHECKS, "the scenario's checks, in its order");
    // every check passed but the job-type and volume ones, skipped: the shipped service job has none of it
    for (const id of CHECKS) {
      const want = NO_SUCH_JOB_CHECKS.includes(id) ? 'skipped' : 'passed';
      t.equal(v.get(id)?.label, want, `${id} ${want}: ${v.get(id)?.message}`);
    }
    const p = (run?.properties ?? {}) as Record<string, string>;
    t.equal(p['lab.topology'], '3+2', 'three servers, two clients');
    t.comment(`leader before: ${p['leader.before']}; after: ${p['leader.after']}; fault: ${p['fault.1.target']}`);

    const file = (run?.artifacts ?? []).find((a: { name: string }) => a.name === 'cluster-evidence.json');
    t.ok(file, 'the cluster evidence is an artifact');
    const e = JSON.parse(readFileSync(file.path, 'utf8')) as ClusterEvidence;
    const l = e.leader!;
    t.ok(l, 'the leader was watched');
    t.ok(SERVERS.includes(l.before), `the leader before was a server (${l.before})`);
    t.same(
      e.turns.map((x) => [x.machine, x.targetedAs]),
      [[l.before, 'leader']],
      'one turn: the leader, resolved when the fault started',
    );
    t.match(p['fault.1.target'] ?? '', new RegExp(`^${l.before} \\(leader`), 'the JUnit names the resolved leader');
    const turn = e.turns[0]!;
    t.ok(
      turn.reboot.bootIdBefore && turn.reboot.bootIdBefore !== turn.reboot.bootIdAfter,
      'the leader really rebooted',
    );
    t.notOk(l.single, 'three servers: not the single-server case');
    t.ok(l.elected && l.elected !== l.before && SERVERS.includes(l.elected), `another server led (${l.elected})`);
    t.ok(
      l.electedAfterMs !== undefined && l.electedAfterMs <= l.boundMs,
      `within the bound (${seconds(l.electedAfterMs ?? NaN)} of ${seconds(l.boundMs)})`,
    );
    t.ok(l.oldRejoined, `the old leader rejoined (${l.oldState})`);
    t.comment(
      `leader ${l.before} -> ${l.elected} after ${seconds(l.electedAfterMs ?? NaN)}; ${l.before} back ${seconds(turn.reboot.backAt - turn.reboot.requestedAt)} after the reboot; ${l.oldState}`,
    );
    // no alloc disturbed: the same allocs, on the same nodes, running
    const after = new Map(e.after.map((a) => [a.id, a]));
    for (const b of e.before) {
      const a = after.get(b.id);
      t.ok(
        a && a.nodeId === b.nodeId && a.clientStatus === 'running',
        `${b.name} ${b.id.slice(0, 8)} still runs on ${e.nodeNames[b.nodeId]}`,
      );
    }
    for (const c of serviceContinuity(e.series!))
      t.comment(`${c.service}: answered at ${c.up} of ${c.ticks} ticks, ${c.gaps.length} gaps`);
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
    // the topology's warm lab (kept by this run, or by rolling-reboot.test.ts before it): five VMs, removed here
    const warm = p['lab.snapshot.key'] ? `warm-${p['lab.snapshot.key']}` : undefined;
    if (warm) {
      const d = await runCli(t, ['destroy', warm, '--netns', NETNS]);
      t.equal(d.code, 0, `destroy ${warm}`);
      t.same(domainsMatching(warm), [], `no libvirt domain of ${warm} left`);
    }
  },
);

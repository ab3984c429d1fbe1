// e2e tier: the shipped `rolling-reboot` with drain on a cluster of 3 servers and 2 clients, on real VMs with a real
// Nomad build. Each client in turn is drained, really rebooted and marked eligible again; after the roll every alloc
// must have been migrated (not lost), run somewhere, and the job's count be met. The service's gaps are measured and
// reported; a gap may only rest on evidence that the service was down (a refusal, or no alloc on a live client),
// never on the harness giving up on a slow answer. Whether the service kept answering through a roll is what a user
// runs this scenario to learn, and one roll says little, so the roll runs ROLLS times (the first cold, the others on
// the warm lab of the topology) and continuity must hold in at least MIN_HELD of them; the count is printed as "held
// in k of n". Takes the first build of NOMAD_BINARIES / NOMAD_BINARY; skips visibly without it or the lab. Five VMs
// under emulation: 20+ minutes cold, about 10 more per warm roll; run under `flock /work/vm.lock`. The warm lab is
// made in a work dir of the file's own and destroyed at the end.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { buildsFromEnv, e2eRunFlags, runCli, verdictsOf, warmWorkDir } from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';
import { serviceContinuity, seconds } from '../../lib/checks/continuity.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';
import type { Test } from 'tap';

t.setTimeout(150 * 60_000);
const build = buildsFromEnv()[0];
const skip = build ? vmSkipReason() : 'no Nomad build given: set NOMAD_BINARY=/path/to/nomad (or NOMAD_BINARIES)';
const CHECKS = checkIds('rolling-reboot');
const CLIENTS = ['client-1', 'client-2'];
/** How many rolls run, one after another on one lab. */
const ROLLS = 3;
/**
 * In how many of them continuity must hold: all. The drain moves each client's alloc to the other client before its
 * reboot, so with two clients some alloc can answer at every tick; every recorded 3+2 roll held (docs/findings.md:
 * 112 of 112 ticks on 0a3e790, passed again on 3235f2c), and the one 1+2 roll that did not was the harness's own probe
 * deadline, now a silence. A gap is Nomad dropping the service (or a harness defect): either must be looked at.
 */
const MIN_HELD = ROLLS;

t.test(
  `run rolling-reboot --servers 3 --clients 2 on Nomad ${build?.version ?? '(none)'}, ${ROLLS} times: each client drained, rebooted, eligible again; every alloc migrated; continuity held in at least ${MIN_HELD}`,
  { skip: skip ?? false, timeout: 140 * 60_000 },
  async (t) => {
    const { work, lab, warmLabs } = warmWorkDir(t, 'nrh-e2e-rolling-');
    const held: boolean[] = [];
    for (let k = 1; k <= ROLLS; k++)
      await t.test(`roll ${k} of ${ROLLS}`, async (t) => held.push(await roll(t, k, work)));
    const n = held.filter(Boolean).length;
    t.comment(`service continuity held in ${n} of ${held.length} rolls`);
    t.equal(held.length, ROLLS, 'every roll ran');
    t.ok(n >= MIN_HELD, `service continuity held in ${n} of ${held.length} rolls (at least ${MIN_HELD})`);
    t.equal(warmLabs().length, 1, 'one warm lab for every roll');
    t.equal((await runCli(t, ['destroy', '--warm', ...lab])).code, 0, 'destroy --warm');
    t.same(warmLabs(), [], 'no warm lab left');
  },
);

/** One roll (the k-th, on the warm lab in `work` after the first), held to everything but continuity's outcome; returns whether continuity held. */
async function roll(t: Test, k: number, work: string): Promise<boolean> {
  const dir = t.testdir({});
  const { flags, junit, summary } = e2eRunFlags(build!, dir);
  const started = Date.now();
  // warm: the CLI child runs cold unless told (cli-child.ts), and the rolls after the first revert the first's lab
  const r = await runCli(
    t,
    ['run', 'rolling-reboot', '--servers', '3', '--clients', '2', '--drain', '--work-dir', work, ...flags],
    undefined,
    { HARNESS_WARM: '1' },
  );
  const run = JSON.parse(readFileSync(summary, 'utf8')).runs?.[0];
  const v = verdictsOf(run);
  t.comment(`run ${r.runIds.join(', ')}: exit ${r.code} after ${seconds(Date.now() - started)}`);
  t.comment([...v.values()].map((x) => `${x.id}=${x.label}: ${x.message}`).join('\n'));
  validateJUnit(t, junit);
  t.same([...v.keys()], CHECKS, "the scenario's checks, in its order");
  const p = (run?.properties ?? {}) as Record<string, string>;
  t.equal(p['lab.topology'], '3+2', 'three servers, two clients');
  t.equal(p['reboot.drain'], 'true', 'drained');
  t.equal(p['reboot.rolling'], 'true', 'one client at a time');
  t.match(v.get('targets-hit')?.message ?? '', /every target hit: client-1, client-2$/, 'both clients hit');
  t.equal(v.get('allocs-followed')?.label, 'passed', `allocs-followed: ${v.get('allocs-followed')?.message}`);
  t.equal(v.get('untouched-allocs')?.label, 'skipped', 'every client was a target: no alloc was left alone');

  const file = (run?.artifacts ?? []).find((a: { name: string }) => a.name === 'cluster-evidence.json');
  t.ok(file, 'the cluster evidence is an artifact');
  const e = JSON.parse(readFileSync(file.path, 'utf8')) as ClusterEvidence;
  t.same(
    e.turns.map((x) => x.machine),
    CLIENTS,
    'one turn per client, in order',
  );
  for (const [k, turn] of e.turns.entries()) {
    t.equal(turn.drain?.status, 'complete', `${turn.machine}: drained to completion`);
    t.ok(turn.drain && turn.reboot.requestedAt >= turn.drain.doneAt, `${turn.machine}: rebooted after its drain`);
    t.ok(
      turn.reboot.bootIdBefore && turn.reboot.bootIdAfter && turn.reboot.bootIdBefore !== turn.reboot.bootIdAfter,
      `${turn.machine}: really rebooted (a new boot id)`,
    );
    t.ok(
      typeof turn.eligibleAt === 'number' && turn.eligibleAt >= turn.reboot.backAt,
      `${turn.machine}: eligible again once back`,
    );
    const prev = e.turns[k - 1];
    if (prev)
      t.ok(
        turn.drain!.requestedAt >= prev.eligibleAt!,
        `${turn.machine}: drained only after ${prev.machine} was eligible`,
      );
    t.comment(
      `${turn.machine}: drain ${seconds(turn.drain!.doneAt - turn.drain!.requestedAt)} (${turn.drain!.allocsOnNode.length} allocs), back ${seconds(turn.reboot.backAt - turn.reboot.requestedAt)} after the reboot`,
    );
  }
  // every alloc healthy before the roll sat on a drained client: each must have been migrated, none lost
  const drained = new Set(e.turns.flatMap((x) => x.drain?.allocsOnNode ?? []));
  t.ok(
    e.before.every((a) => drained.has(a.id)),
    'every alloc healthy before the roll was on a drained node',
  );
  const running = e.after.filter((a) => a.clientStatus === 'running' && a.desiredStatus === 'run');
  t.equal(running.length, e.expectedAllocs, `the count is met after the roll (${e.expectedAllocs})`);
  t.ok(
    running.every((a) => !e.before.some((b) => b.id === a.id)),
    'every running alloc is a replacement: the drains moved every original one',
  );
  t.notOk(
    e.after.some((a) => a.clientStatus === 'lost' || a.clientStatus === 'failed'),
    'no alloc lost or failed',
  );

  // the service's gaps: measured and reported; each must rest on evidence of down, not on a probe given up on
  t.ok(e.series && e.series.samples.length > 10, 'a probe series over the roll');
  const all = serviceContinuity(e.series!);
  for (const c of all)
    t.comment(
      `${c.service}: answered at ${c.up} of ${c.ticks} ticks; gaps: ${c.gaps.map((g) => `${seconds(g.lengthMs)} from ${new Date(g.fromMs).toISOString()} (${g.lastError})`).join('; ') || 'none'}; silences: ${c.silences.map((g) => `${seconds(g.lengthMs)} from ${new Date(g.fromMs).toISOString()}`).join('; ') || 'none'}; slowest answer ${seconds(c.slowestMs ?? NaN)}`,
    );
  const sc = v.get('service-continuity');
  t.comment(`service-continuity=${sc?.label}: ${sc?.message}`);
  t.match(sc?.label ?? '', /^(passed|failed)$/, 'continuity judged (not skipped): two clients can serve in turn');
  if (sc?.label === 'failed')
    t.ok(
      all.some((c) => c.gaps.length > 0),
      'a failed continuity rests on a measured gap (each one shown above with its last error)',
    );
  for (const g of all.flatMap((c) => c.gaps))
    t.notMatch(
      g.lastError,
      /gave up after|deadline reached/,
      `the gap from ${new Date(g.fromMs).toISOString()} is not the harness's own deadline`,
    );
  t.equal(
    r.code,
    sc?.label === 'passed' ? 0 : 1,
    'exit 0 when every check met its expectation, else 1 (only continuity may fail, on a measured gap)',
  );
  for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  if (k === 1) t.match(p['lab.warm'], /^no /, `the first roll brings the lab up cold: ${p['lab.warm']}`);
  else t.equal(p['lab.warm'], 'yes', 'a warm roll');
  return sc?.label === 'passed';
}

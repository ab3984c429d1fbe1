// upgrade-in-place through the real CLI code path against STAND-INS: the Nomad API stand-in on the upgrade timelines
// (1.9.4-1.9.6 collision, 1.9.7 migration) and a stand-in lab whose CNI listing follows the stand-in's host-local state.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { main } from '../../lib/cli/main.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { standIn } from '../helpers/stand-in-env.js';
import { standInRunArgs } from '../helpers/stand-in-run.js';
import type { Timeline } from '../helpers/fake-nomad/index.js';
import { RESTORE_CHECKS, UPGRADE_CHECKS } from '../../scenarios/upgrade-in-place.js';
import { UNIQUE_IPS_AFTER_UPGRADE } from '../../lib/checks/unique-ips-after-upgrade.js';
import { STATE_MIGRATED } from '../../lib/checks/state-migrated.js';

async function run(t: Test, timeline: Timeline, flags: string[]) {
  const dir = t.testdir({});
  const s = await standIn(timeline, { cwd: dir });
  t.teardown(() => s.nomad.close());
  const code = await main([...standInRunArgs(dir, 'upgrade-in-place', '/stand-in/nomad-1.9.3'), ...flags], s.deps);
  if (code === 2) return { code, s, dir, check: () => undefined, cases: () => [], junit: '', summary: undefined };
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  validateJUnit(t, join(dir, 'junit.xml'));
  const cases = [
    new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit).testsuites.testsuite.testcase,
  ].flat() as Record<string, unknown>[];
  const check = (id: string) => cases.find((c) => String(c['name']).endsWith(`(${id})`));
  return {
    code,
    s,
    dir,
    check,
    cases: () => cases,
    junit,
    summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')),
  };
}

t.test(
  '"upgrade-collide" (1.9.3 -> 1.9.5, as the real run showed): the API shows unique addresses, the client host does not; exit 1',
  async (t) => {
    const r = await run(t, 'upgrade-collide', ['--upgrade-to', '/stand-in/nomad-1.9.5']);
    t.equal(r.code, 1);
    const unique = JSON.stringify(r.check(UNIQUE_IPS_AFTER_UPGRADE.id)?.['failure']);
    t.match(
      unique,
      /172\.26\.64\.2 is held by netns \w+ \[pid \d+ python3\] and an unnamed netns of pid \d+ python3 \(client host\)/,
      "the old task's namespace and a new alloc hold one address",
    );
    t.notMatch(unique, /\(API\)/, 'the API view alone shows no collision (real 1.9.5)');
    t.notOk(
      r.check('state-agrees')?.['failure'],
      'host-local state agrees with the API (real 1.9.5: all six in the tmpfs dir)',
    );
    t.match(
      JSON.stringify(r.check('state-migrated')?.['failure']),
      /\/var\/lib\/cni\/networks\/nomad still exists \(3 reservation/,
    );
    t.match(
      r.summary.runs[0].properties['allocs.after'],
      /=172\.26\.64\.[567]\b.*=172\.26\.64\.[567]\b.*=172\.26\.64\.[567]\b/,
      'the restored allocs moved to new addresses',
    );
    t.ok(
      r.summary.runs[0].artifacts.some((a: { name: string }) => a.name === 'client-netns-after.json'),
      'the host view is kept as an artifact',
    );
    t.equal(r.s.nomad.cluster.node.Attributes?.['nomad.version'], '1.9.5', 'the stand-in client runs build B');
    t.ok(
      r.s.lab.commands['client']!.some((c) => c.includes('base64 -w0')),
      'the CNI state was listed on the client',
    );
    t.match(r.junit, /allocs\.before/, 'addresses before the upgrade are properties');
    t.ok(r.s.lab.destroyed);
  },
);

t.test(
  'the old id unique-ips still takes an expectation, with a warning naming unique-ips-after-upgrade',
  async (t) => {
    const r = await run(t, 'upgrade-collide', [
      '--upgrade-to',
      '/stand-in/nomad-1.9.5',
      '--expect',
      'unique-ips=fail',
      '--expect',
      `${STATE_MIGRATED.id}=fail`,
    ]);
    t.equal(r.code, 0, 'the collision reproduced as expected');
    const verdicts = r.summary.runs[0].verdicts as { id: string; label: string }[];
    t.equal(
      verdicts.find((v) => v.id === UNIQUE_IPS_AFTER_UPGRADE.id)?.label,
      'expected failure',
      'judged under the new id',
    );
    t.notOk(
      r.cases().some((c) => String(c['name']).endsWith('(unique-ips)')),
      'no case under the old id',
    );
    const stderr = r.s.err.join('');
    t.match(
      stderr,
      /warning: expectation unique-ips=fail \(scenario upgrade-in-place\): the check unique-ips is now unique-ips-after-upgrade; the old id is deprecated, write unique-ips-after-upgrade=fail/,
    );
  },
);

t.test('"upgrade-migrated" (1.9.3 -> 1.9.7): unique addresses, state agrees, migration logged, exit 0', async (t) => {
  const r = await run(t, 'upgrade-migrated', ['--upgrade-to', '/stand-in/nomad-1.9.7']);
  t.equal(
    r.code,
    0,
    `exit 0 (${r.s.err
      .join('')
      .split('\n')
      .filter((l) => /FAIL|ERROR/.test(l))
      .join(' | ')})`,
  );
  for (const { id } of UPGRADE_CHECKS) t.notOk(r.check(id)?.['failure'] ?? r.check(id)?.['skipped'], `${id} passed`);
  t.match(
    JSON.stringify(r.check('state-migrated')),
    /migrated CNI state: src=\/var\/lib\/cni\/networks\/nomad dest=\/var\/run\/cni\/nomad/,
  );
  t.match(
    r.summary.runs[0].properties['cni.reservations.after:/var/run/cni/nomad'],
    /^(172\.26\.64\.\d+ ?){6}$/,
    'six reservations in the tmpfs dir',
  );
  t.equal(r.summary.runs[0].properties['cni.reservations.after:/var/lib/cni/networks/nomad'], '(missing)');
});

t.test(
  'upgrade-then-reboot on 1.9.7: the reboot after the migration keeps everything consistent, exit 0',
  async (t) => {
    const r = await run(t, 'upgrade-migrated', [
      '--upgrade-to',
      '/stand-in/nomad-1.9.7',
      '--upgrade-mode',
      'upgrade-then-reboot',
    ]);
    t.equal(r.code, 0);
    t.ok(
      r.summary.runs[0].steps.some((s: { name: string }) => /reboot the client/.test(s.name)),
      'the client was rebooted',
    );
    const steps = r.summary.runs[0].steps as { name: string; durationMs: number }[];
    const rebootAt = steps.findIndex((s) => /^reboot the client/.test(s.name));
    const nodeWait = steps[rebootAt + 1]!;
    t.match(nodeWait.name, /wait for the client node to register again/);
    // the stand-in client re-registers 20 ms and is ready 40 ms after it is back: a wait that read the view from before
    // the reboot (the node stays ready within heartbeat_grace) would return at once
    t.ok(nodeWait.durationMs >= 20, `the node wait waited for the re-registration (${nodeWait.durationMs} ms)`);
    t.match(steps[rebootAt + 2]!.name, /wait until the job has settled after the reboot/);
    type V = { id: string; status: string; message: string; perAlloc?: { status: string; detail: string }[] };
    const v = (id: string) => (r.summary.runs[0].verdicts as V[]).find((x) => x.id === id)!;
    for (const { id } of RESTORE_CHECKS) t.equal(v(id).status, 'passed', `${id}: ${v(id).message}`);
    t.equal(v('alloc-restored').perAlloc?.length, 3, "every alloc's restore judged with the reboot scenario's checks");
    t.ok(
      v('alloc-restored').perAlloc!.every((p) =>
        /running again .* with its tasks started after the reboot/.test(p.detail),
      ),
    );
    t.match(r.summary.runs[0].properties['job.settled'], /^yes: all 3 allocs settled/);
  },
);

t.test('upgrade (no reboot): the restore checks are skipped, saying why', async (t) => {
  const r = await run(t, 'upgrade-migrated', ['--upgrade-to', '/stand-in/nomad-1.9.7']);
  t.equal(r.code, 0);
  t.match(
    JSON.stringify(r.check('alloc-restored')?.['skipped']),
    /only in --upgrade-mode upgrade-then-reboot \(this run: upgrade\)/,
  );
});

t.test('restart-only (same build, control case): no --upgrade-to needed, state-migrated skipped, exit 0', async (t) => {
  const r = await run(t, 'restored', ['--upgrade-mode', 'restart-only']);
  t.equal(r.code, 0);
  t.ok(r.check('state-migrated')?.['skipped'], 'nothing to migrate');
  t.notOk(r.check(UNIQUE_IPS_AFTER_UPGRADE.id)?.['failure']);
  t.notOk(r.check('state-agrees')?.['failure']);
});

t.test('without --upgrade-to: a configuration error before anything is created, exit 2', async (t) => {
  const r = await run(t, 'upgrade-collide', []);
  t.equal(r.code, 2);
  t.match(r.s.err.join(''), /--upgrade-to: is required by scenario upgrade-in-place/);
  t.same(r.s.lab.commands['client'], [], 'no command reached the lab');
});

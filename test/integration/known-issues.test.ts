// Known-issue labels through the real CLI code path against STAND-INS, with failures recorded on real builds: the
// 1.9.3 duplicate-IP error (the stand-in's duplicate-ip timeline quotes it), secrets/ on the root filesystem after a
// reboot and the agent's fd leak after an agent restart (test/fixtures/whole-alloc/real-1.9.7) on a build reporting
// 1.11.3, under each policy; a fix that regressed, an issue that did not reproduce, a renamed binary, compare, merge,
// and a user table with bad rows. No VMs and no Nomad here.
import t, { type Test } from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { runOnStandIns, standInReportArgs, type StandInRunOptions } from '../helpers/stand-in-run.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { validateJUnit } from '../helpers/junit-schema.js';

const RECORDED_FD_LEAK = readFileSync(
  new URL('../fixtures/whole-alloc/real-1.9.7/after-agent-kill/agent-samples.txt', import.meta.url),
  'utf8',
);
const secretsOnDisk: StandInRunOptions['before'] = (s) => {
  s.lab.tasks.faults.secretsOnDiskAfterReboot = true;
};
const fdLeak: StandInRunOptions['before'] = (s) => {
  s.lab.tasks.faults.recordedAgentSamples = RECORDED_FD_LEAK;
};

interface Labelled {
  id: string;
  status: string;
  label: string;
  message: string;
  knownIssue: { kind: string; issue?: string; fixedIn?: string; via?: string } | null;
}

async function run(t: Test, extra: string[], o: StandInRunOptions) {
  const r = await runOnStandIns(t, extra, o);
  const summary = JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8'));
  const run0 = summary.runs[0];
  const v = (id: string): Labelled => run0.verdicts.find((x: Labelled) => x.id === id);
  return {
    ...r,
    summary,
    run: run0,
    v,
    out: r.s.out.join(''),
    junit: () => readFileSync(join(r.dir, 'junit.xml'), 'utf8'),
  };
}

// Note: each test runs its own stand-ins and mostly waits on their timelines; two at a time overlap those waits
t.jobs = 2;

t.test('1.9.3, the duplicate IP: known GH-24650 with its consequences, under each policy', async (t) => {
  const o = { timeline: 'duplicate-ip' as const, nomad: '/stand-in/nomad-1.9.3' };
  const label = await run(t, [], o);
  t.equal(label.code, 1, 'label: exit 1 as without the table');
  t.match(label.v('no-duplicate-ip'), {
    status: 'failed',
    label: 'failed',
    knownIssue: { kind: 'known', issue: 'GH-24650', fixedIn: '1.9.4, 1.10.0' },
  });
  t.match(label.v('alloc-restored').knownIssue, { kind: 'known', issue: 'GH-24650', via: 'no-duplicate-ip' });
  t.match(
    label.out,
    /FAIL {2}No duplicate-IP error \(no-duplicate-ip\): CNI refused a duplicate IP allocation: .* — known: GH-24650 \(fixed in 1\.9\.4, 1\.10\.0\)/,
  );
  t.match(label.summary.knownIssues, { policy: 'label', new: 0, issues: ['GH-24650'], findings: [] });
  validateJUnit(t, join(label.dir, 'junit.xml'));
  t.match(label.junit(), /<property name="known_issue" value="GH-24650"\/>/);
  t.match(
    label.junit(),
    /<failure message="CNI refused a duplicate IP allocation: [^"]* \[known: GH-24650 \(fixed in 1\.9\.4, 1\.10\.0\)\]"/,
  );
  const page = readFileSync(
    label.run.artifacts.find((a: { name: string }) => a.name === 'report.html')?.path ??
      join(label.dir, 'reports', label.run.runId, 'report.html'),
    'utf8',
  );
  t.match(
    page,
    /<span class="known known" data-known-issue="GH-24650"><a href="https:\/\/github\.com\/hashicorp\/nomad\/issues\/24650">known: GH-24650 \(fixed in 1\.9\.4, 1\.10\.0\)<\/a><\/span>/,
  );

  const expect = await run(t, ['--known-issues', 'expect'], o);
  t.equal(expect.code, 0, 'expect: only a known issue reproduced, exit 0');
  for (const id of ['no-duplicate-ip', 'alloc-restored', 'task-restarted', 'http-reachable', 'no-leaks'])
    t.match(expect.v(id), { status: 'failed', label: 'expected failure', knownIssue: { issue: 'GH-24650' } }, id);
  t.match(
    expect.out,
    /PASS bridge-exec-reboot@1\.9\.3 — 18 checks: 7 passed, 5 expected failures, 0 failed, 6 skipped/,
  );

  const off = await run(t, ['--known-issues', 'off'], o);
  t.equal(off.code, 1);
  t.notOk(
    off.run.verdicts.some((x: Labelled) => x.knownIssue),
    'off: no label in the JSON',
  );
  t.notMatch(off.out, /known: GH-/, 'off: none on the console');
  t.notMatch(off.junit(), /known_issue"/);
  t.same(
    off.run.verdicts.map((x: Labelled) => [x.id, x.status]),
    label.run.verdicts.map((x: Labelled) => [x.id, x.status]),
    'the same observations under every policy',
  );
});

t.test('1.11.3: task-dirs after a reboot (GH-28345), agent-resources after an agent restart (GH-27885)', async (t) => {
  const nomad = '/stand-in/nomad-1.11.3';
  const dirs = await run(t, ['--known-issues', 'expect'], { nomad, before: secretsOnDisk });
  t.equal(dirs.code, 0, 'expect: exit 0');
  t.match(dirs.v('task-dirs'), {
    status: 'failed',
    label: 'expected failure',
    knownIssue: { kind: 'known', issue: 'GH-28345', fixedIn: '2.0.5' },
  });
  t.match(
    dirs.out,
    /xfail Task directories on tmpfs \(task-dirs\): expected failure: .* — known: GH-28345 \(fixed in 2\.0\.5\)/,
  );
  const fds = await run(t, ['--reboot', 'agent-kill'], { nomad, before: fdLeak });
  t.equal(fds.code, 1, 'label: exit 1');
  t.match(fds.v('agent-resources'), {
    status: 'failed',
    message: /open fds keep growing/,
    knownIssue: { kind: 'known', issue: 'GH-27885', fixedIn: '2.0.1' },
  });
  t.same(fds.run.knownIssues.findings, [], 'GH-28345 is no reboot-less issue: no finding under agent-kill');
  const both = await run(t, ['--reboot', 'agent-kill', '--known-issues', 'expect'], { nomad, before: fdLeak });
  t.equal(both.code, 0);
});

t.test('a fix that regressed: the same failure on 2.0.5 is never known, under every policy', async (t) => {
  for (const policy of ['label', 'expect', 'off']) {
    const r = await run(t, ['--known-issues', policy], { nomad: '/stand-in/nomad-2.0.5', before: secretsOnDisk });
    t.equal(r.code, 1, `${policy}: exit 1`);
    t.match(r.run.knownIssues.findings, [{ kind: 'fix-regressed', issue: 'GH-28345', checks: ['task-dirs'] }]);
    t.match(
      r.out,
      /Known issues: look at these\n {2}FIX REGRESSED bridge-exec-reboot@2\.0\.5 \(run \w+\): task-dirs failed on a build that has the fix of GH-28345 \(2\.0\.5 >= 2\.0\.5\)/,
    );
    if (policy !== 'off') t.match(r.v('task-dirs').knownIssue, { kind: 'regression', issue: 'GH-28345' });
  }
});

t.test(
  'a known issue that did not reproduce on a build without its fix: loud always, exit 1 under expect',
  async (t) => {
    const nomad = '/stand-in/nomad-1.11.3';
    const label = await run(t, [], { nomad });
    t.equal(label.code, 0, 'label: exit code as without the table');
    t.match(
      label.out,
      /NOT REPRODUCED bridge-exec-reboot@1\.11\.3 \(run \w+\): GH-28345 did not reproduce on a build without its fix \(1\.11\.3: no release of 1\.11 has the fix\): task-dirs passed/,
    );
    t.match(
      label.junit(),
      /<property name="known_issue\.finding\.1" value="not-reproduced: GH-28345 did not reproduce/,
    );
    const expect = await run(t, ['--known-issues', 'expect'], { nomad });
    t.equal(expect.code, 1, 'expect: the reproduction broke, exit 1');
    t.match(expect.v('known-issue-not-reproduced'), {
      label: 'unexpected pass',
      message: /GH-28345 did not reproduce/,
    });
    validateJUnit(t, join(expect.dir, 'junit.xml'));
  },
);

t.test('a renamed binary: the same verdicts; the label from what `nomad version` said', async (t) => {
  const real = await run(t, [], { nomad: '/stand-in/nomad-1.11.3', before: secretsOnDisk });
  // the stand-in's build with no version in its name answers `nomad version` with 1.9.7
  const renamed = await run(t, [], { nomad: '/stand-in/renamed-build', before: secretsOnDisk });
  const seen = (r: typeof real) => r.run.verdicts.map((x: Labelled) => [x.id, x.status, x.label]);
  t.same(seen(renamed), seen(real), 'verdicts as judged, whatever the name');
  t.equal(renamed.run.properties['nomad.build.version'], '1.9.7');
  t.match(renamed.v('task-dirs').knownIssue, { kind: 'known', issue: 'GH-28345' });
  t.match(renamed.run.knownIssues.fixes['GH-28345'], { detail: '1.9.7: no release of 1.9 has the fix' });
});

t.test('compare: the flip names the issue whose fix explains it', async (t) => {
  const dir = t.testdir({});
  const s = standInPerRun(
    {
      '/stand-in/nomad-1.9.3': { timeline: 'duplicate-ip', version: '1.9.3' },
      '/stand-in/nomad-1.9.4': { timeline: 'restored', version: '1.9.4' },
    },
    { cwd: dir },
  );
  const code = await main(
    [
      'compare',
      'bridge-exec-reboot',
      '--before',
      '/stand-in/nomad-1.9.3',
      '--after',
      '/stand-in/nomad-1.9.4',
      ...standInReportArgs(dir),
    ],
    s.deps,
  );
  t.equal(code, 0);
  const out = s.out.join('');
  t.match(
    out,
    /no-duplicate-ip: the fix of GH-24650 explains the flip \(bridge-exec-reboot@1\.9\.4 has it; fixed in 1\.9\.4, 1\.10\.0\) https:\/\/github\.com\/hashicorp\/nomad\/issues\/24650/,
  );
  const sum = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  t.match(sum.comparison.rows.find((r: { id: string }) => r.id === 'no-duplicate-ip').explainedBy, {
    issue: 'GH-24650',
    has: 'after',
  });
});

t.test('merge of labelled reports: the index has the known/new column and the new failures on top', async (t) => {
  const root = t.testdir({ a: {}, b: {} });
  const a = await run(t, [], { timeline: 'duplicate-ip', nomad: '/stand-in/nomad-1.9.3', dir: join(root, 'a') });
  const b = await run(t, [], { nomad: '/stand-in/nomad-2.0.5', before: secretsOnDisk, dir: join(root, 'b') });
  const out: string[] = [];
  const deps = {
    ...standInPerRun({}, { cwd: root }).deps,
    out: (x: string) => void out.push(x),
    err: (x: string) => void out.push(x),
  };
  const code = await main(['merge', join(a.dir, 'summary.json'), join(b.dir, 'summary.json'), '--out', 'merged'], deps);
  t.equal(code, 1, out.join(''));
  const index = readFileSync(join(root, 'merged', 'index.html'), 'utf8');
  t.match(
    index,
    /<p class="counts" id="known-issues">1 failure on a build that has the fix; known issues reproduced: GH-24650; 1 known-issue finding to look at<\/p>/,
  );
  t.match(index, /<th>new<\/th><th>known \/ new<\/th>/);
  t.match(
    index,
    /data-cell="bridge-exec-reboot@1\.9\.3"[^]*?<td class="n" data-key="new">0<\/td><td data-key="known">known: <a href="https:\/\/github\.com\/hashicorp\/nomad\/issues\/24650">GH-24650<\/a><\/td>/,
  );
  t.match(
    index,
    /data-cell="bridge-exec-reboot@2\.0\.5"[^]*?<td class="n" data-key="new">0<\/td><td data-key="known"><b>regression: 1<\/b>; <b>1 finding<\/b><\/td>/,
  );
  const merged = JSON.parse(readFileSync(join(root, 'merged', 'summary.json'), 'utf8'));
  t.match(merged.knownIssues, { known: 5, regression: 1, issues: ['GH-24650'] });
  t.match(merged.knownIssues.findings, [{ kind: 'fix-regressed', issue: 'GH-28345' }]);
});

t.test("a user's table: its rows over the shipped ones; bad rows refused all at once, exit 2", async (t) => {
  const dir = t.testdir({
    'mine.yaml': [
      'issues:',
      '  - id: GH-28345',
      '    title: task dirs, our 1.11 backport',
      '    checks: [task-dirs]',
      '    conditions: { kinds: [graceful] }',
      "    lines: { '1.11': 1.11.3 }",
      '    source: our release notes',
      '',
    ].join('\n'),
    run: {},
    bad: {},
    'bad.yaml': [
      'issues:',
      '  - id: GH-1',
      '    checks: [task-dirz]',
      "    lines: { '1.11': 2.0.5 }",
      '    source: x',
      '  - id: ACME-2',
      '    title: t',
      '    checks: [no-leaks]',
      '    fixes: [{ branch: main, commit: NOTHEX }]',
      "    signature: ['nil map', '(*dynamicUsersHook).Prestart']",
      '    source: y',
      '',
    ].join('\n'),
  });
  const mine = await run(t, ['--known-issues-file', join(dir, 'mine.yaml')], {
    nomad: '/stand-in/nomad-1.11.3',
    before: secretsOnDisk,
    dir: join(dir, 'run'),
  });
  t.match(mine.v('task-dirs').knownIssue, { kind: 'regression', issue: 'GH-28345' }, 'our row says 1.11.3 has it');
  const bad = await runOnStandIns(t, ['--known-issues-file', join(dir, 'bad.yaml')], {
    nomad: '/stand-in/nomad-1.11.3',
    dir: join(dir, 'bad'),
  });
  const err = bad.err();
  t.equal(bad.code, 2, 'exit 2');
  for (const field of [
    'issues[0].title',
    'issues[0].checks',
    'issues[0].lines.1.11',
    'issues[1].url',
    'issues[1].fixes[0].commit',
    'issues[1].signature[1]',
  ])
    t.match(err, `bad.yaml: ${field}`, field);
  t.match(err, /invalid configuration \(6 problems\)/);
  t.notOk(existsSync(join(dir, 'bad', 'summary.json')), 'refused before anything ran');
  // a key beside issues: (here beside a valid row) is a problem of the file, not ignored (Q366)
  writeFileSync(join(dir, 'colour.yaml'), `colour: red\n${readFileSync(join(dir, 'mine.yaml'), 'utf8')}`);
  const colour = await runOnStandIns(t, ['--known-issues-file', join(dir, 'colour.yaml')], {
    nomad: '/stand-in/nomad-1.11.3',
    dir: join(dir, 'bad'),
  });
  t.equal(colour.code, 2, 'exit 2');
  t.match(colour.err(), /colour\.yaml: colour: is not a key of a known-issue file \(got "colour"; fix: use issues:/);
});

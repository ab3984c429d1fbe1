// `compare` through the real CLI code path against STAND-INS: every run gets a fresh Nomad API stand-in (real-shaped
// payloads, scripted timeline per build) and a stand-in lab. No VMs and no Nomad here; real builds run in test/e2e.
import t, { type Test } from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { main } from '../../lib/cli/main.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { standInPerRun, type StandInBuild } from '../helpers/stand-in-env.js';
import { standInReportArgs } from '../helpers/stand-in-run.js';

const OLD = '/stand-in/nomad-1.9.3';
const NEW = '/stand-in/nomad-1.9.4';
const BUILDS: Record<string, StandInBuild> = {
  [OLD]: { timeline: 'duplicate-ip', version: '1.9.3' },
  [NEW]: { timeline: 'restored', version: '1.9.4' },
};

async function compare(t: Test, before: string, after: string, extra: string[] = []) {
  const dir = t.testdir({});
  const s = standInPerRun(BUILDS, { cwd: dir });
  const code = await main(
    ['compare', 'bridge-exec-reboot', '--before', before, '--after', after, ...standInReportArgs(dir), ...extra],
    s.deps,
  );
  return {
    code,
    dir,
    s,
    junit: () => readFileSync(join(dir, 'junit.xml'), 'utf8'),
    summary: () => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')),
  };
}

function validate(t: Test, file: string) {
  validateJUnit(t, file);
}

t.test('1.9.3 -> 1.9.4: the fix flips no-duplicate-ip; the after build passes, exit 0', async (t) => {
  const r = await compare(t, OLD, NEW);
  t.equal(r.code, 0, "exit code is the after build's");
  t.equal(r.s.runs.length, 2, 'two runs, each with its own stand-ins');
  t.not(r.s.runs[0]!.runId, r.s.runs[1]!.runId, 'own run ids');
  t.same(
    r.s.runs.map((x) => x.binary),
    [OLD, NEW],
    'before first, then after',
  );
  t.ok(
    r.s.runs.every((x) => x.lab.destroyed),
    'both labs torn down',
  );
  validate(t, join(r.dir, 'junit.xml'));
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(r.junit());
  const suites = [xml.testsuites.testsuite].flat() as Record<string, unknown>[];
  t.same(
    suites.map((x) => x['name']),
    ['bridge-exec-reboot@1.9.3', 'bridge-exec-reboot@1.9.4'],
    'one suite per build, named by version',
  );
  t.ok(Number(suites[0]!['failures']) > 0, "the before build's failures are in its suite");
  t.equal(Number(suites[1]!['failures']), 0);
  const sum = r.summary();
  t.equal(sum.exitCode, 0);
  t.equal(sum.runs.length, 2);
  t.ok(sum.comparison.flipped.includes('no-duplicate-ip'), 'comparison lists the flip');
  t.notOk(sum.comparison.flipped.includes('client-rebooted'), 'a check passing on both is no flip');
  t.match(sum.comparison.before, { build: OLD, version: '1.9.3', outcome: 'failed' });
  const out = r.s.out.join('');
  t.match(out, /no-duplicate-ip\)\s+failed\s+passed\s+FLIPPED/);
  t.match(out, /checks flipped between bridge-exec-reboot@1\.9\.3 and bridge-exec-reboot@1\.9\.4/);
  for (const run of r.s.runs)
    t.ok(existsSync(join(r.dir, 'reports', run.runId, 'report.html')), `an HTML page for run ${run.runId}`);
  t.notMatch(out, /re-run this comparison/, 'no repro when the after build met its expectations');
});

t.test('a regression in the after build fails the compare, exit 1', async (t) => {
  const r = await compare(t, NEW, OLD);
  t.equal(r.code, 1);
  t.match(r.s.out.join(''), /no-duplicate-ip\)\s+passed\s+failed\s+FLIPPED/);
  t.equal(r.summary().outcome, 'failed');
  const out = r.s.out.join('');
  t.match(out, /re-run this comparison exactly \(also in .+repro\.sh\):/, 'a failed compare prints its repro');
  t.match(
    out,
    new RegExp(
      `node \\S+reboot-harness\\.js compare bridge-exec-reboot --before \\S*${NEW.split('/').pop()} --after \\S*${OLD.split('/').pop()} --netns ''`,
    ),
    'same scenario, both builds, the same inputs; output paths dropped',
  );
  t.notMatch(out.split('re-run this comparison')[1] ?? '', /--junit|--reports-dir/);
});

t.test('--expect applies to the after build only', async (t) => {
  const r = await compare(t, NEW, OLD, ['--expect', 'no-duplicate-ip=fail']);
  t.equal(r.code, 0, 'the duplicate-IP failure and its consequences were expected on the after build');
  const rows = r.summary().comparison.rows as { id: string; before: { label: string }; after: { label: string } }[];
  const dup = rows.find((x) => x.id === 'no-duplicate-ip')!;
  t.equal(dup.before.label, 'passed', 'before: no expectation applied');
  t.equal(dup.after.label, 'expected failure');
});

t.test('missing --before/--after and a --nomad-binary are reported together, exit 2, nothing run', async (t) => {
  const dir = t.testdir({});
  const s = standInPerRun(BUILDS, { cwd: dir });
  const code = await main(
    ['compare', 'bridge-exec-reboot', '--after', NEW, '--nomad-binary', OLD, '--netns', ''],
    s.deps,
  );
  t.equal(code, 2);
  const err = s.err.join('');
  t.match(err, /--before: is required/);
  t.match(err, /--nomad-binary: cannot be combined/);
  t.equal(s.runs.length, 0, 'no lab was brought up');
  const noNomad = await main(['compare', 'cni-ipam-reboot', '--before', OLD, '--after', NEW, '--netns', ''], s.deps);
  t.equal(noNomad, 2, 'a scenario without Nomad cannot compare builds');
  t.match(s.err.join(''), /does not install Nomad/);
});

t.test('compare of one build against itself runs, with a warning that it is one build twice', async (t) => {
  const r = await compare(t, NEW, NEW);
  t.equal(r.code, 0);
  t.match(
    r.s.err.join(''),
    /warning: --before \/stand-in\/nomad-1\.9\.4 and --after \/stand-in\/nomad-1\.9\.4 are the same build: the comparison runs it twice/,
  );
  const other = await compare(t, OLD, NEW);
  t.notMatch(other.s.err.join(''), /same build/, 'two builds: no warning');
});

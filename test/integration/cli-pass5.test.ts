// The CLI's fifth adversarial pass (docs/cli-defects.md, rows Q19 on), through the real main() with the stand-ins and
// --plan: a secret JSON has to escape, a build flag given empty, and a relative input path told with where it was
// looked for.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { destroyLabs } from '../../lib/cli/destroy.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { standInPerRun } from '../helpers/stand-in-env.js';

const NOMAD = '/stand-in/nomad-1.9.7';

function cli(t: Test, env: Record<string, string> = {}) {
  const dir = t.testdir({});
  const s = standInPerRun({ [NOMAD]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const deps = {
    ...s.deps,
    env: { ...s.deps.env, ...env },
    makeEnv: () => {
      throw new Error('--plan must not make a lab');
    },
  };
  return async (argv: string[]) => {
    s.out.length = 0;
    s.err.length = 0;
    const session = ['run', 'compare', 'matrix'].includes(argv[0]!);
    const code = await main(
      [...argv, '--netns', '', ...(session ? ['--reports-dir', join(dir, 'reports')] : [])],
      deps,
    );
    return { code, out: s.out.join(''), err: s.err.join('') };
  };
}

t.test(
  'NOMAD_TOKEN with a quote, a backslash or a newline is not printed by --plan or an error document (Q19)',
  async (t) => {
    for (const token of ['quo"tetoken-abcdefghijk', 'bs\\tokenabcdefghijk123', 'nl-token-abcdefgh\nsecond-line-xyz']) {
      const escaped = JSON.stringify(token).slice(1, -1);
      const run = cli(t, { NOMAD_TOKEN: token });
      const plan = await run(['run', '--nomad', NOMAD, '--plan']);
      t.equal(plan.code, 0, plan.err);
      const doc = JSON.parse(plan.out) as { schema: string };
      t.equal(doc.schema, 'nomad-reboot-harness/plan@1', 'still one JSON document');
      t.notOk(plan.out.includes(escaped) || plan.out.includes(token), `${escaped}: not in the plan`);
      t.match(plan.out, /"token": "\[REDACTED\]"/);
      const bad = await run(['run', '--nomad', NOMAD, '--plan', '--json', '--cpus', '0']);
      t.equal(bad.code, 2);
      t.notOk(bad.out.includes(escaped) || bad.err.includes(token), `${escaped}: not in the error document`);
    }
  },
);

t.test('--nomad "" is one problem: empty, not also missing (Q20)', async (t) => {
  const run = cli(t);
  const r = await run(['run', '--nomad', '', '--plan']);
  t.equal(r.code, 2);
  t.match(r.err, /--nomad: must be a non-empty string/);
  t.notMatch(r.err, /needs a build/, 'the same mistake is not told twice');
  const both = await run(['run', '--nomad', '', '--cpus', '0', '--plan']);
  t.match(both.err, /invalid configuration \(2 problems\)/, 'the other problems are still told');
  const none = await run(['run', '--plan']);
  t.match(
    none.err,
    /--nomad: scenario bridge-exec-reboot installs Nomad and needs a build/,
    'no build at all still says so',
  );
});

t.test('a relative --known-issues-file that is not there names where it was looked for (Q21)', async (t) => {
  const run = cli(t);
  const r = await run(['run', '--nomad', NOMAD, '--known-issues-file', 'no-such-ki.yaml', '--plan']);
  t.equal(r.code, 2);
  t.match(
    r.err,
    /known_issues_file \(--known-issues-file\): cannot be read: ENOENT.* \(a relative path is read from the working directory: \/[^)]*\/no-such-ki\.yaml\)/,
  );
});

t.test('nomad: written as a scalar (the token with its key forgotten) is not echoed back (Q22)', async (t) => {
  const run = cli(t);
  const dir = t.testdir({ 'h.yaml': 'nomad: sekret-whole-nomad-section-xyz\nlab: 5\n' });
  const r = await run(['run', '--nomad', NOMAD, '-c', join(dir, 'h.yaml'), '--plan']);
  t.equal(r.code, 2);
  t.match(r.err, /h\.yaml: nomad: must be a mapping of keys to values \(got "\[REDACTED\]"/);
  t.match(r.err, /h\.yaml: lab: must be a mapping of keys to values \(got 5/, 'a section without a secret is shown');
  t.notMatch(r.err, /sekret/);
});

t.test('--drain-deadline with --drain=false is refused as ignored (Q14)', async (t) => {
  const run = cli(t);
  const base = ['run', 'rolling-reboot', '--nomad', NOMAD, '--plan'];
  const r = await run([...base, '--drain=false', '--drain-deadline', '5m']);
  t.equal(r.code, 2);
  t.match(
    r.err,
    /--drain-deadline: is the deadline of a drain, and --drain=false drains nothing, so it would be ignored/,
  );
  t.equal((await run([...base, '--drain-deadline', '5m'])).code, 0, 'with the drain it is read');
  const other = await run(['run', '--nomad', NOMAD, '--plan', '--drain=false', '--drain-deadline', '5m']);
  t.equal(other.err.match(/--drain-deadline:/g)?.length, 1, 'refused once where the scenario refuses it anyway');
});

t.test('doctor --provider ssh is one problem: no hosts asked for a provider it refuses (P19)', async (t) => {
  const run = cli(t);
  const r = await run(['doctor', '--provider', 'ssh']);
  t.equal(r.code, 2);
  t.match(r.err, /lab\.provider \(--provider\): doctor checks a libvirt host .* no checks for ssh/);
  t.notMatch(r.err, /lab\.hosts/);
  const more = await run(['doctor', '--provider', 'ssh', '--memory', '0']);
  t.match(more.err, /invalid configuration \(2 problems\)/, 'the other problems are still told');
});

t.test('a switch given true/false as a separate word names the switch, not an unknown scenario (Q24)', async (t) => {
  const run = cli(t);
  const r = await run(['run', '--nomad', NOMAD, '--plan', '--fresh', 'false']);
  t.equal(r.code, 2);
  t.match(
    r.err,
    /--fresh: is a switch: the word after it is read as the scenario .*fix: write --fresh=false, or --fresh alone/,
  );
  t.notMatch(r.err, /scenario: is not a known scenario/);
  t.equal((await run(['run', '--nomad', NOMAD, '--plan', '--fresh=false'])).code, 0, '--fresh=false is taken');
  const other = await run(['run', '--nomad', NOMAD, '--plan', '--fresh', 'bogus']);
  t.match(other.err, /scenario: is not a known scenario \(got "bogus"/, 'another word is still a scenario');
});

t.test('destroy of one unknown id given twice names it once (Q27)', async (t) => {
  const workDir = t.testdir({});
  const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, workDir } };
  await t.rejects(
    destroyLabs(config, ['abc', 'abc'], false, () => {}),
    {
      message: `no lab for run id abc under ${workDir}`,
      exitCode: 2,
    },
  );
});

t.test('matrix: a problem of the file is told with the command line values, not before them (Q34)', async (t) => {
  const run = cli(t);
  const dir = t.testdir({
    'bad.yaml': `scenario: bridge-exec-reboot\ndefaults:\n  nomad_build: ${NOMAD}\naxes:\n  reboot: [graceful, bogus]\n`,
    'good.yaml': `scenario: bridge-exec-reboot\ndefaults:\n  nomad_build: ${NOMAD}\naxes:\n  reboot: [graceful, hard]\n`,
  });
  const r = await run(['matrix', join(dir, 'bad.yaml'), '--plan', '--memory', '1']);
  t.equal(r.code, 2);
  t.match(r.err, /invalid configuration \(2 problems\)/);
  t.match(r.err, /bad\.yaml: axes\.reboot\[1\]: is not a reboot kind/);
  t.match(r.err, /--memory: must be a whole number from 512 to 65536 MiB/);
  const good = await run(['matrix', join(dir, 'good.yaml'), '--plan', '--memory', '1']);
  t.equal(good.code, 2);
  t.equal(good.err.match(/--memory:/g)?.length, 1, 'a valid file: the value told once, by its cells');
});

t.test('a relative job file or fault schedule that is not there names where it was looked for (Q21)', async (t) => {
  const run = cli(t);
  const job = await run(['run', '--nomad', NOMAD, '--job', 'jobs/no-such.nomad.hcl', '--plan']);
  t.equal(job.code, 2);
  t.match(
    job.err,
    /cannot be read \(ENOENT\) \(a relative path is read from the working directory: \/[^)]*\/jobs\/no-such\.nomad\.hcl\)/,
  );
  const faults = await run(['run', 'rolling-reboot', '--nomad', NOMAD, '--faults', 'no-such-faults.yaml', '--plan']);
  t.equal(faults.code, 2);
  t.match(
    faults.err,
    /--faults \(reboot\.faults\): cannot be read: ENOENT.* \(a relative path is read from the working directory: \/[^)]*\/no-such-faults\.yaml\)/,
  );
  const abs = await run(['run', '--nomad', NOMAD, '--job', '/no-such-dir/x.nomad.hcl', '--plan']);
  t.notMatch(abs.err, /relative path/, 'an absolute path is named as given');
});

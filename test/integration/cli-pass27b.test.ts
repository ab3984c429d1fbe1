// The CLI's twenty-seventh adversarial pass, part B (docs/cli-defects.md, rows Q520 on): merge of a bisect's folder
// (alone, beside the shards, its JUnit file given), and destroy/list-labs over lab folders whose spec was edited by
// hand or cannot be looked at. The CLI's lines run main() in this process (test/helpers/cli-no-lab.ts: the real CLI's
// checks, the user scenarios under tsx, no lab; each line in its folder, so this file runs alone); destroy runs with
// the fake vagrant of test/fixtures/fake-bin.
import t from 'tap';
import '../helpers/ts-loader.js';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../../lib/config/schema.js';
import { helpText } from '../../lib/cli/args.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { destroyLabs } from '../../lib/cli/destroy.js';
import { runDoctor } from '../../lib/cli/doctor.js';
import type { RunCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { findLabs, renderLabs } from '../../lib/cli/labs.js';
import type { LogEvent } from '../../lib/log/events.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';
import { labSpecJson, paster } from '../helpers/fabricated-lab.js';

t.setTimeout(3 * 60_000);

/** The CLI's main() in `dir`, a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });

/** The JUnit file a bisect writes in its folder: one suite `bisect:<check>@<good>..<bad>` (docs/bisect.md). */
const BISECT_JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nomad-reboot-harness" tests="1" failures="0" errors="1" time="0.2">
  <testsuite name="bisect:c@v1..v2" tests="1" failures="0" errors="1" skipped="0" time="0.2" timestamp="2026-12-07T16:45:01">
    <testcase name="answer: broken" classname="bisect.c" time="0.2"><error message="the endpoint did not build" type="broken"/></testcase>
  </testsuite>
</testsuites>
`;

t.test(
  "merge of a bisect's folder: told as a bisect (alone, or its JUnit file given), left out with a warning beside the shards, never 'one cell ran on two runners' (Q520)",
  async (t) => {
    const dir = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': lablessScenarioSource('bad', 'failed') },
      'm.yaml': 'scenario: [bad]\naxes:\n  reboot: [graceful, panic]\ndefaults:\n  scenarios_dir: usc\n',
    });
    const cli = cliAt(dir);
    // a bisect's folder as it writes it: its marks, its JUnit file, and two tries, each a run of one scenario
    const bisect = join(dir, 'bis', 'bisect-r1');
    mkdirSync(bisect, { recursive: true });
    writeFileSync(join(bisect, 'bisect-inputs.json'), '{}\n');
    writeFileSync(join(bisect, 'bisect.json'), '{ "schema": "nomad-reboot-harness/bisect@1" }\n');
    writeFileSync(join(bisect, 'junit.xml'), BISECT_JUNIT);
    for (const tri of ['aaaaaaaaaa-try1', 'bbbbbbbbbb-try1']) {
      const r = await cli(
        'run',
        'bad',
        '--scenarios',
        'usc',
        '--netns',
        '',
        '--reports-dir',
        `bis/bisect-r1/runs/${tri}`,
      );
      t.equal(r.status, 1, r.stderr);
    }
    for (const i of [1, 2]) {
      const r = await cli('matrix', 'm.yaml', '--shard', `${i}/2`, '--netns', '', '--reports-dir', `ci/shard-${i}`);
      t.equal(r.status, 1, r.stderr);
    }

    const alone = await cli('merge', 'bis', '--out', 'merged-bis');
    t.equal(alone.status, 2, 'the bisect given alone: nothing to merge');
    t.match(alone.stderr, /merge input: is a bisect's report \(bis\/bisect-r1\), which merge does not read/);
    t.match(alone.stderr, /publish the bisect's junit\.xml on its own/);
    t.notMatch(alone.stderr, /one cell ran on two runners|check the shard split|is in no JSON report/);

    const file = await cli('merge', 'ci/shard-1', 'ci/shard-2', 'bis/bisect-r1/junit.xml', '--out', 'merged-file');
    t.equal(file.status, 2, "the bisect's JUnit file given beside the shards");
    t.match(file.stderr, /is a bisect's report \(bis\/bisect-r1\/junit\.xml\)/);
    t.notMatch(file.stderr, /is in no JSON report|give the report folder the run wrote/);

    // the CI layout: every job's reports under one folder, a bisect's among them
    cpSync(join(dir, 'bis'), join(dir, 'ci'), { recursive: true });
    const beside = await cli('merge', 'ci', '--out', 'merged');
    t.equal(beside.status, 1, `the shards merged, their verdict: ${beside.stderr}`);
    t.match(beside.stdout, /merged 2 suites from 2 JSON reports/, 'the tries are no cells of the merge');
    t.match(beside.stderr, /warning: ci\/bisect-r1 is a bisect's report: left out of the merge/);
    t.match(
      readFileSync(join(dir, 'merged', 'index.html'), 'utf8'),
      /ci\/bisect-r1 is a bisect&#39;s report: left out of the merge/,
      'the index page says so too',
    );

    // a bisect's --report-json written at the top of the shards' folder does not make the shards a bisect's
    writeFileSync(join(dir, 'ci', 'bisect.json'), '{ "schema": "nomad-reboot-harness/bisect@1" }\n');
    const json = await cli('merge', 'ci', '--out', 'merged-json');
    t.equal(json.status, 1, json.stderr);
    t.match(json.stdout, /merged 2 suites from 2 JSON reports/);

    const tri = await cli('merge', 'bis/bisect-r1/runs/aaaaaaaaaa-try1', '--out', 'merged-try');
    t.equal(tri.status, 1, `one try named is a run like any other: ${tri.stderr}`);
  },
);

t.test(
  'destroy --older-than over a lab whose spec names a machine that is no machine: that lab kept and named, every other destroyed, exit 3, not 70 (Q521); a spec that is a looping link is told, not hidden (Q522)',
  async (t) => {
    const root = t.testdir({
      work: {
        a1: { 'lab-spec.json': labSpecJson('a1') },
        b2: { 'lab-spec.json': labSpecJson('b2', [null, 1, 'x']) },
        c3: { 'lab-spec.json': labSpecJson('c3', [{ role: 'client' }]) },
        d4: { 'lab-spec.json': labSpecJson('d4') },
        loop: {},
      },
      fake: {},
    });
    symlinkSync('lab-spec.json', join(root, 'work', 'loop', 'lab-spec.json'));
    t.ok(lstatSync(join(root, 'work', 'loop', 'lab-spec.json')).isSymbolicLink());
    const config = {
      ...DEFAULTS,
      lab: { ...DEFAULTS.lab, provider: 'virtualbox' as const, workDir: join(root, 'work') },
    };
    const { labs, problems } = await findLabs(config);
    t.same(
      labs.map((l) => l.id),
      ['a1', 'd4'],
    );
    t.match(problems.join('\n'), /lab b2 .*it is no lab spec \(machine 1 of 3 is no machine with a name and a role\)/);
    t.match(problems.join('\n'), /lab c3 .*it is no lab spec \(machine 1 of 1/);
    t.match(problems.join('\n'), /lab loop .*ELOOP/, 'list-labs names the folder whose spec loops');
    const env = {
      PATH: `${fileURLToPath(new URL('../fixtures/fake-bin', import.meta.url))}:${process.env['PATH']}`,
      FAKE_VAGRANT_MODE: 'dir',
      FAKE_VAGRANT_DIR: join(root, 'fake'),
    };
    const events: LogEvent[] = [];
    const code = await destroyLabs(config, [], false, (e) => void events.push(e), {
      vagrant: { env, lockDir: root },
      sweep: { olderThanS: 0 },
      nowMs: Date.now() + 60_000,
    });
    t.equal(code, 3, 'the labs it could not read are kept: exit 3, not a harness bug (70)');
    const warns = events.flatMap((e) => (e.kind === 'warn' ? [e.message] : [])).join('\n');
    t.match(warns, /could not destroy lab b2 .*no machine with a name and a role\); kept/);
    t.match(warns, /could not destroy lab loop .*ELOOP.*; kept/);
    t.same(readdirSync(join(root, 'work')).sort(), ['b2', 'c3', 'loop'], 'a1 and d4 destroyed, after b2 too');
  },
);

t.test(
  'two runs of one scenario (two jobs, or a chain of compares sharing a build) merged: told as two runs that are no matrix cells, each merged on its own, not a shard split to check (Q523)',
  async (t) => {
    const dir = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': lablessScenarioSource('bad', 'failed') },
    });
    const cli = cliAt(dir);
    for (const job of ['job-a', 'job-b']) {
      const r = await cli('run', 'bad', '--scenarios', 'usc', '--netns', '', '--reports-dir', `reports/${job}`);
      t.equal(r.status, 1, r.stderr);
    }
    const m = await cli('merge', 'reports', '--out', 'merged');
    t.equal(m.status, 2);
    t.notMatch(m.stderr, /one cell ran on two runners|check the shard split/);
    t.match(
      m.stderr,
      /two runs that are no cells of one matrix \(a run \(r\w+\) and a run \(r\w+\)\) have a suite of this name/,
    );
    const each =
      /fix: merge the reports of each on their own \(one merge, with its own --out, each: (reboot-harness merge \S+ --out \S+) and (reboot-harness merge \S+ --out \S+)\)/.exec(
        m.stderr,
      );
    t.ok(each, m.stderr);
    // each line as printed, its own --out in it (Q651): the second no longer writes over the first
    for (const line of each?.slice(1) ?? []) {
      const one = await cli(...line.split(' ').slice(1));
      t.equal(one.status, 1, `${line} merges alone: ${one.stderr}`);
    }
  },
);

t.test(
  "doctor where virsh is not installed: libvirtd's fix installs the client, not a daemon start (Q526)",
  async (t) => {
    const dir = t.testdir({});
    const without =
      (missing: string): RunCommand =>
      async (file) => {
        if (file === missing) throw new Error(`spawn ${file} ENOENT`);
        return { code: 1, stdout: '', stderr: 'error: failed to connect to the hypervisor\n', durationMs: 1 };
      };
    for (const netns of ['nrh-lab', '']) {
      const items = await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, netns, run: without('virsh') });
      const lv = items.find((i) => i.name === 'libvirtd reachable');
      t.match(lv, { ok: false, detail: /virsh is not installed/ }, `netns "${netns}"`);
      t.match(lv?.fix, /apt-get install -y libvirt-clients/, 'the fix installs virsh');
      t.notMatch(lv?.fix, /libvirtd -d|systemctl start libvirtd/, 'not a start of a daemon that may well run');
    }
    const items = await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, run: without('nothing') });
    t.match(
      items.find((i) => i.name === 'libvirtd reachable')?.fix,
      /libvirtd -d/,
      'a virsh that cannot reach libvirtd: still the start of the daemon',
    );
  },
);

t.test(
  "every command's --help and docs/cli.md name the codes main() gives every command: 70 a harness bug, 130 a Ctrl-C or SIGTERM (destroy, list-labs, doctor exit 130 when interrupted) (Q527)",
  async (t) => {
    const reference = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    for (const c of COMMANDS) {
      const exits = /^Exit codes: (.*)$/m.exec(helpText(c.name))?.[1] ?? '';
      t.match(exits, /(^|; )70 /, `${c.name} --help: 70`);
      t.match(exits, /(^|; )130 /, `${c.name} --help: 130`);
      t.ok(reference.includes(`Exit codes: ${exits}`), `docs/cli.md says the same of ${c.name}`);
    }
  },
);

t.test(
  "list-labs' hints under a work dir of your own: login and destroy name it, so the line followed (an id, or a sweep in its place) acts on the labs listed, not the default work dir's (Q528)",
  async (t) => {
    const dir = t.testdir({ bin: {} });
    const pasted = paster(dir);
    const lab = {
      id: 'r1abc',
      kind: 'kept' as const,
      dir: '/w x/r1abc',
      ageS: 60,
      machines: ['client'],
      topology: '1+1',
    };
    for (const work of ["/w x/$(touch PWNED) it's", DEFAULTS.lab.workDir]) {
      const text = renderLabs([lab], work);
      const login = /^reach a kept lab: (.*)$/m.exec(text)?.[1] ?? '';
      const destroy = /^remove: (.*) \(or --warm/m.exec(text)?.[1] ?? '';
      const where = work === DEFAULTS.lab.workDir ? [] : ['--work-dir', work];
      t.same(pasted(login.replace('<id> [machine]', 'r1abc client')), ['login', 'r1abc', 'client', ...where], text);
      t.same(pasted(destroy.replace('<id>', 'r1abc')), ['destroy', 'r1abc', ...where]);
      t.same(pasted(destroy.replace('<id>', '--older-than 24h')), ['destroy', '--older-than', '24h', ...where]);
    }
    t.notOk(existsSync(join(dir, 'PWNED')));
    // login's hint names list-labs of that work dir too
    const root = t.testdir({ work: { r2: { 'lab-spec.json': labSpecJson('r2') } } });
    const c = await noLabLines(root)('login', 'nope', '--work-dir', join(root, 'work'), '--netns', '');
    t.equal(c.status, 2);
    // with the namespace given (the host's network) (Q600)
    t.match(c.stderr, `(reboot-harness list-labs --work-dir ${join(root, 'work')} --netns '')`);
  },
);

const hasFish = spawnSync('fish', ['-c', 'true']).status === 0;

t.test(
  'fish completion of lab ids: an id holding a tab or a newline is not offered cut at it (a lab that does not exist), the others as they are (Q525)',
  { skip: hasFish ? false : 'fish is not installed' },
  async (t) => {
    const dir = t.testdir({});
    const c = await noLabLines(dir)('completion', 'fish');
    t.equal(c.status, 0, c.stderr);
    writeFileSync(join(dir, 'c.fish'), c.stdout);
    const labs = ['r0abc', 'tab\tx', 'nl\nid', 'sp ace', 'x$(touch PWNED)y'];
    for (const id of labs) {
      mkdirSync(join(dir, 'work', id), { recursive: true });
      writeFileSync(join(dir, 'work', id, 'lab-spec.json'), '{}\n');
    }
    const r = spawnSync('fish', ['--no-config', '-c', "source c.fish; complete -C 'reboot-harness destroy '"], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, HARNESS_WORK_DIR: join(dir, 'work') },
      encoding: 'utf8',
    });
    t.equal(r.status, 0, r.stderr);
    t.same(r.stdout.split('\n').filter(Boolean).sort(), ['r0abc', 'sp ace', 'x$(touch PWNED)y']);
    t.notOk(existsSync(join(dir, 'PWNED')));
  },
);
